#include "commands/validate_command.h"

#include <unistd.h>

#include <iostream>
#include <map>
#include <set>
#include <memory>
#include <sstream>

#include "cluster_check/cluster_check.h"
#include "commands/cluster_option.h"
#include "fleet/cluster_sharing.h"
#include "commands/acceptance.h"
#include "commands/cli_support.h"
#include "commands/layer_options.h"
#include "support/diagnostics_format.h"
#include "fleet/fleet.h"
#include "support/input_file.h"
#include "pipeline/pipeline.h"
#include "pipeline/profile_check.h"

namespace hkim {
namespace {

constexpr char kFooter[] = R"(
Examples:
  hkimgen validate profiles/*.yaml
  hkimgen validate profiles/oke-h100.yaml profiles/oke-a100.yaml
  hkimgen validate profiles/ 'fleet/*.yaml'
  hkimgen validate profiles/oke-h100.yaml --set workload.replicas=64 --strict
  hkimgen validate profiles/barcelona-h100-cx7.yaml -f staging.yaml -o json
  hkimgen validate profiles/oke-h100.yaml --allow lint.image-latest
  cat profiles/oke-h100.yaml | hkimgen validate -
  hkimgen validate profiles/oke-h100.yaml --cluster cluster-export.json
  kubectl get -A -o json nodes,... | hkimgen validate profiles/oke-h100.yaml --cluster -

Checks the schema, the model's cross-field rules and every lint rule (`hkimgen lint
--list-rules`); each fault is reported once at file:line:col of the layer that holds it, with
the rule id and a fix. Warnings the profile accepts (accept_warnings:) or --allow accepts are
shown as notes with their reason. A folder stands for its *.yaml files, a quoted pattern is
expanded. Given several profiles, those of one cluster (same Argo CD destination) are also
checked together: no object emitted by two of them, and one NicClusterPolicy that lists every
profile's NIC device IDs (lint.shared-*); and two profiles with the same cluster.name are an
error naming both (their bundles would share a folder in a fleet, `render A B ... -d DIR`).
With --cluster, the profiles are also compared with a live cluster's export
(docs/cluster-check.md, "Check against the cluster"): which nodes the selectors pick, each rail's
PF on every picked node (name, device, link, MTU, VFs), the resources the pods request, the
bundle's preconditions (pool, node-role labels, preinstalled operators, OpenShift release) and
objects the bundle would take over; each finding at the profile line it concerns, naming the
cluster object (cluster.*), and a per-node table on a terminal (--node-table elsewhere; in -o json
always).
Writes nothing. `hkimgen lint` is the stricter form.
Exit status: 0 valid (warnings alone pass unless --strict), 1 invalid, 2 I/O or internal failure.)";

struct ValidateRun {
  DiagnosticSink sink;
  SourceTexts sources;
  std::vector<std::pair<std::string, bool>> results;  // profile, clean of errors
  std::vector<std::optional<CheckedProfile>> checked;
  std::vector<ProfileClaim> claims;  // cluster names, checked across the set
  /// --cluster named an export that could not be read: a profile clean alone is then not judged
  /// (its verdict would otherwise read "invalid" for a fault of the export's path).
  bool export_unread = false;
};

/// Several profiles given: those that passed alone are checked as a set (profiles of one
/// cluster must not emit the same objects: fleet/cluster_sharing.h).
void CheckProfileSet(const std::vector<std::optional<CheckedProfile>>& checked,
                     std::vector<std::pair<std::string, bool>>& results, DiagnosticSink& sink) {
  std::vector<ClusterMember> members;
  std::vector<size_t> index;
  for (size_t i = 0; i < checked.size(); ++i) {
    if (!checked[i] || !checked[i]->profile) continue;
    members.push_back({&checked[i]->layered.merged, &*checked[i]->profile,
                       checked[i]->plan ? &*checked[i]->plan : nullptr});
    index.push_back(i);
  }
  if (members.size() < 2) return;
  const std::vector<bool> flagged = CheckClusterSharing(members, ArgoCdOfSet::kPerhapsOnePerCluster, sink);
  for (size_t m = 0; m < members.size(); ++m) {
    if (flagged[m]) results[index[m]].second = false;
  }
}

/// --cluster: every profile that built is compared with the export; its findings join its own.
nlohmann::json CheckAgainstCluster(const ValidateOptions& options, ValidateRun& run,
                                   std::ostream& table) {
  const std::vector<std::optional<CheckedProfile>>& checked = run.checked;
  std::vector<std::pair<std::string, bool>>& results = run.results;
  DiagnosticSink& sink = run.sink;
  std::vector<ClusterSubject> subjects;
  std::vector<size_t> index;  // subject -> profile
  for (size_t i = 0; i < checked.size(); ++i) {
    if (!checked[i] || !checked[i]->profile) continue;
    subjects.push_back({&*checked[i]->profile, &*checked[i]->plan, &checked[i]->layered.merged});
    index.push_back(i);
  }
  std::optional<ClusterComparison> comparison =
      CompareWithCluster(options.cluster, subjects, sink, run.sources);
  if (!comparison) {
    run.export_unread = true;
    return nullptr;
  }
  for (size_t s = 0; s < subjects.size(); ++s) {
    const DiagnosticSink one = AcceptWarnings(comparison->findings[s], subjects[s].loaded,
                                              options.allow);
    if (one.HasErrors()) results[index[s]].second = false;
    for (const Diagnostic& d : one.diagnostics()) sink.Report(d);
  }
  if (!subjects.empty()) {
    const DiagnosticSink unpicked =
        AcceptWarnings(comparison->unpicked, subjects.front().loaded, options.allow);
    for (const Diagnostic& d : unpicked.diagnostics()) sink.Report(d);
  }
  table << comparison->NodeTables();
  return comparison->NodeTablesJson();
}

}  // namespace

void AddClusterOptions(CLI::App* command, ValidateOptions& options) {
  AddClusterOption(command, options.cluster);
  command->add_flag("--node-table", options.node_table,
                    "With --cluster: print the per-node table also when stdout is no terminal");
}

void SetupValidateCommand(CLI::App& app) {
  auto options = std::make_shared<ValidateOptions>();
  auto output = std::make_shared<OutputChoice>();
  CLI::App* command = app.add_subcommand(
      "validate", "Check profiles (schema, model, lint rules and closure); write nothing");
  command->add_option("PROFILE", options->profiles,
                      "Cluster profiles (YAML), folders of them or quoted patterns; - reads stdin")
      ->required();
  AddLayerOptions(command, options->layers);
  AddAllowOption(command, options->allow);
  command->add_flag("--strict", options->strict, "Warnings fail too (exit 1)");
  AddClusterOptions(command, *options);
  AddOutputOption(command, *output, {"text", "json"});
  command->footer(kFooter);
  command->callback([options, output] {
    if (!ResolveOutputChoice(*output, {"text", "json"}, "validate", "", "", std::cerr)) {
      FinishCommand(1);
    }
    options->format = output->format;
    FinishCommand(RunValidateCommand(*options, std::cout));
  });
}

namespace {

/// What validate found so far: each profile's check and whether it is clean of errors, the
/// cluster names the profiles claim.

/// Each profile on its own: schema, model, lint rules, closure.
void CheckEachProfile(const ValidateOptions& options, ValidateRun& run) {
  for (const std::string& profile : ExpandProfileArgs(options.profiles, run.sink)) {
    LayerInputs inputs = options.layers;
    inputs.profile_path = profile;
    DiagnosticSink one;
    run.checked.push_back(CheckLayeredProfile(inputs, one, &run.sources));
    const std::optional<CheckedProfile>& checked = run.checked.back();
    if (checked && checked->profile) {
      run.claims.push_back({profile, checked->profile->cluster_name,
                            checked->layered.merged.locations.Find("/cluster/name")});
    }
    one = AcceptWarnings(one, checked ? &checked->layered.merged : nullptr, options.allow);
    // Under lint (--strict) an unaccepted warning fails the profile: it is not printed "valid"
    // while the command exits 1.
    run.results.emplace_back(profile,
                             !one.HasErrors() && !(options.strict && one.WarningCount() > 0));
    for (const Diagnostic& d : one.diagnostics()) run.sink.Report(d);
  }
}

/// The profiles as a set. The cause before its consequences: two profiles claiming one
/// cluster.name come first; what the set checks then find between those profiles follows from it
/// (often one profile copied) and is folded into one note under it.
void CheckAcrossProfiles(ValidateRun& run) {
  DiagnosticSink across;
  CheckProfileClaims(run.claims, across);
  std::set<std::string> duplicated;  // files of a cluster name claimed twice
  std::map<std::string, std::vector<std::string>> by_name;
  for (const ProfileClaim& claim : run.claims) {
    by_name[claim.cluster_name].push_back(claim.profile_path);
  }
  for (const auto& [name, files] : by_name) {
    if (files.size() > 1) duplicated.insert(files.begin(), files.end());
  }
  for (const Diagnostic& d : across.diagnostics()) {
    for (auto& [profile, clean] : run.results) {
      if (profile == d.location.file) clean = false;
    }
    run.sink.Report(d);
  }
  DiagnosticSink set_findings;
  CheckProfileSet(run.checked, run.results, set_findings);
  int folded = 0;
  for (const Diagnostic& d : set_findings.diagnostics()) {
    if (duplicated.count(d.location.file) && d.severity == Severity::kError) {
      ++folded;
    } else {
      run.sink.Report(d);
    }
  }
  if (folded > 0) {
    const Diagnostic& cause = across.diagnostics().front();
    run.sink.Report(Diagnostic{Severity::kNote, cause.location, "", "fleet.duplicate-cluster",
                               std::to_string(folded) +
                                   " more error(s) between the profiles that share a "
                                   "cluster.name (lint.shared-*) follow from it and are not listed",
                               "give each profile its own cluster.name, then validate again"});
  }
}

}  // namespace

int RunValidateCommand(const ValidateOptions& options, std::ostream& out) {
  ValidateRun run;
  CheckEachProfile(options, run);
  CheckAcrossProfiles(run);
  // Then the live cluster's export, when one is given (--cluster).
  std::ostringstream table;
  nlohmann::json cluster_result;
  if (!options.cluster.empty()) {
    cluster_result = CheckAgainstCluster(options, run, table);
  }
  int status = ExitCodeFor(run.sink);
  if (status == 0 && options.strict && run.sink.WarningCount() > 0) status = 1;
  if (options.format == "json") {
    nlohmann::json result = {{"profiles", nlohmann::json::array()}, {"strict", options.strict}};
    for (const auto& [profile, clean] : run.results) {
      nlohmann::json verdict = {{"profile", InputLabel(profile)}, {"valid", clean && !run.export_unread}};
      if (clean && run.export_unread) verdict["judged"] = false;
      result["profiles"].push_back(std::move(verdict));
    }
    if (!options.cluster.empty()) result["cluster"] = cluster_result;
    out << DumpJson(JsonReport(options.command, status, run.sink, result)) << '\n';
    return status;
  }
  out << Colorize(FormatDiagnostics(run.sink, run.sources), ColorEnabled(1));
  if (options.node_table || isatty(STDOUT_FILENO)) out << table.str();
  // A verdict per profile, in the order given: "B: valid" alone after A's errors would read as
  // the whole set's.
  // Under lint with no error at all, what fails is the warnings: said so, or "0 errors" then
  // "invalid" reads as a contradiction.
  const char* invalid = options.strict && !run.sink.HasErrors()
                            ? ": invalid (lint fails on warnings: fix or accept them)\n"
                            : ": invalid\n";
  for (const auto& [profile, clean] : run.results) {
    out << InputLabel(profile)
        << (!clean                ? invalid
            : run.export_unread ? ": not judged (valid alone; the cluster export could not be read)\n"
                                : ": valid\n");
  }
  return status;
}

}  // namespace hkim

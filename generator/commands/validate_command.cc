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
With --cluster, the profiles are also compared with a live cluster's export (README, "Check
against the cluster"): which nodes the selectors pick, each rail's PF on every picked node (name,
device, link, MTU, VFs), the resources the pods request, the bundle's preconditions (pool,
node-role labels, preinstalled operators, OpenShift release) and objects the bundle would take
over; each finding at the profile line it concerns, naming the cluster object (cluster.*), and a
per-node table on a terminal (--node-table elsewhere; in -o json always).
Writes nothing. `hkimgen lint` is the stricter form.
Exit status: 0 valid (warnings alone pass unless --strict), 1 invalid, 2 I/O or internal failure.)";

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
  const std::vector<bool> flagged = CheckClusterSharing(members, sink);
  for (size_t m = 0; m < members.size(); ++m) {
    if (flagged[m]) results[index[m]].second = false;
  }
}

/// --cluster: every profile that built is compared with the export; its findings join its own.
nlohmann::json CheckAgainstCluster(const ValidateOptions& options,
                                   const std::vector<std::optional<CheckedProfile>>& checked,
                                   std::vector<std::pair<std::string, bool>>& results,
                                   DiagnosticSink& sink, SourceTexts& sources, std::ostream& table) {
  std::unique_ptr<cluster_check::ClusterExport> cluster =
      ReadClusterExport(options.cluster, sink, sources);
  if (!cluster) {
    for (auto& [profile, clean] : results) clean = false;
    return nullptr;
  }
  std::vector<cluster_check::ProfileReport> reports;
  const CheckedProfile* first = nullptr;
  for (size_t i = 0; i < checked.size(); ++i) {
    if (!checked[i] || !checked[i]->profile) continue;
    if (first == nullptr) first = &*checked[i];
    DiagnosticSink one;
    reports.push_back(cluster_check::CheckProfile(*checked[i]->profile, *checked[i]->plan,
                                                  checked[i]->layered.merged, *cluster, one));
    one = AcceptWarnings(one, &checked[i]->layered.merged, options.allow);
    if (one.HasErrors()) results[i].second = false;
    for (const Diagnostic& d : one.diagnostics()) sink.Report(d);
  }
  if (first != nullptr) {
    DiagnosticSink unpicked;
    cluster_check::CheckUnpickedNodes(reports, *first->profile, first->layered.merged, *cluster,
                                      unpicked);
    unpicked = AcceptWarnings(unpicked, &first->layered.merged, options.allow);
    for (const Diagnostic& d : unpicked.diagnostics()) sink.Report(d);
  }
  nlohmann::json profiles = nlohmann::json::array();
  for (const cluster_check::ProfileReport& report : reports) {
    profiles.push_back(cluster_check::NodeTableJson(report));
    table << cluster_check::FormatNodeTable(report);
  }
  return {{"export", cluster->label}, {"profiles", profiles}};
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

int RunValidateCommand(const ValidateOptions& options, std::ostream& out) {
  DiagnosticSink sink;
  SourceTexts sources;
  std::vector<std::pair<std::string, bool>> results;  // profile, clean of errors
  std::vector<std::optional<CheckedProfile>> checked;
  std::vector<ProfileClaim> claims;  // cluster names, checked across the set
  for (const std::string& profile : ExpandProfileArgs(options.profiles, sink)) {
    LayerInputs inputs = options.layers;
    inputs.profile_path = profile;
    DiagnosticSink one;
    checked.push_back(CheckLayeredProfile(inputs, one, &sources));
    if (checked.back() && checked.back()->profile) {
      claims.push_back({profile, checked.back()->profile->cluster_name,
                        checked.back()->layered.merged.locations.Find("/cluster/name")});
    }
    one = AcceptWarnings(one, checked.back() ? &checked.back()->layered.merged : nullptr,
                         options.allow);
    // Under lint (--strict) an unaccepted warning fails the profile: it is not printed "valid"
    // while the command exits 1 (issue 28).
    results.emplace_back(profile,
                         !one.HasErrors() && !(options.strict && one.WarningCount() > 0));
    for (const Diagnostic& d : one.diagnostics()) sink.Report(d);
  }
  // The cause before its consequences (issue 28): two profiles claiming one cluster.name come
  // first; what the set checks then find between those profiles follows from it (often one
  // profile copied) and is folded into one note under it.
  DiagnosticSink across;
  CheckProfileClaims(claims, across);
  std::set<std::string> duplicated;  // files of a cluster name claimed twice
  std::map<std::string, std::vector<std::string>> by_name;
  for (const ProfileClaim& claim : claims) by_name[claim.cluster_name].push_back(claim.profile_path);
  for (const auto& [name, files] : by_name) {
    if (files.size() > 1) duplicated.insert(files.begin(), files.end());
  }
  for (const Diagnostic& d : across.diagnostics()) {
    for (auto& [profile, clean] : results) {
      if (profile == d.location.file) clean = false;
    }
    sink.Report(d);
  }
  DiagnosticSink set_findings;
  CheckProfileSet(checked, results, set_findings);
  int folded = 0;
  for (const Diagnostic& d : set_findings.diagnostics()) {
    if (duplicated.count(d.location.file) && d.severity == Severity::kError) {
      ++folded;
    } else {
      sink.Report(d);
    }
  }
  if (folded > 0) {
    const Diagnostic& cause = across.diagnostics().front();
    sink.Report(Diagnostic{Severity::kNote, cause.location, "", "fleet.duplicate-cluster",
                           std::to_string(folded) +
                               " more error(s) between the profiles that share a cluster.name "
                               "(lint.shared-*) follow from it and are not listed",
                           "give each profile its own cluster.name, then validate again"});
  }
  // Then the live cluster's export, when one is given (--cluster).
  std::ostringstream table;
  nlohmann::json cluster_result;
  if (!options.cluster.empty())
    cluster_result = CheckAgainstCluster(options, checked, results, sink, sources, table);
  int status = ExitCodeFor(sink);
  if (status == 0 && options.strict && sink.WarningCount() > 0) status = 1;
  if (options.format == "json") {
    nlohmann::json result = {{"profiles", nlohmann::json::array()}, {"strict", options.strict}};
    for (const auto& [profile, clean] : results) {
      result["profiles"].push_back({{"profile", InputLabel(profile)}, {"valid", clean}});
    }
    if (!options.cluster.empty()) result["cluster"] = cluster_result;
    out << DumpJson(JsonReport(options.command, status, sink, result)) << '\n';
    return status;
  }
  out << Colorize(FormatDiagnostics(sink, sources), ColorEnabled(1));
  if (options.node_table || isatty(STDOUT_FILENO)) out << table.str();
  for (const auto& [profile, clean] : results) {
    if (clean) out << InputLabel(profile) << ": valid\n";
  }
  return status;
}

}  // namespace hkim

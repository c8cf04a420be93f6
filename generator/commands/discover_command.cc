#include "commands/discover_command.h"

#include <filesystem>
#include <iostream>
#include <memory>
#include <regex>

#include "commands/cli_support.h"
#include "commands/cluster_option.h"
#include "discover/discover.h"
#include "load/load.h"
#include "pipeline/pipeline.h"
#include "pipeline/profile_check.h"
#include "support/input_file.h"
#include "support/untrusted_text.h"
#include "write/output_file.h"

namespace hkim {
namespace {

const std::vector<std::string> kDiscoverFormats = {"yaml", "json"};

constexpr char kFooter[] = R"(
Examples:
  kubectl get -A -o json $(kubectl api-resources -o name | grep -xF -e nodes \
    -e sriovnetworknodestates.sriovnetwork.openshift.io \
    -e network-attachment-definitions.k8s.cni.cncf.io -e ippools.nv-ipam.nvidia.com \
    | paste -sd, -) > cluster-export.json        # docs/cluster-check.md lists every type
  hkimgen discover cluster-export.json --name my-cluster --namespace ml-team \
    --output-file profiles/my-cluster.yaml
  hkimgen validate profiles/my-cluster.yaml --cluster cluster-export.json
  hkimgen discover cluster-export.json --name my-cluster --all-groups -d profiles
                                    # profiles/my-cluster-<group>.yaml, one per GPU node group
  oc get nodes,sriovnetworknodestates.sriovnetwork.openshift.io -A -o yaml | hkimgen discover -

Reads only the export (JSON or YAML; a List, single objects, several files). Every inferred
value carries a comment naming the object and field it came from; what an export cannot tell is
a safe default marked TODO. What the cluster runs already is adopted, not installed again: its
operators (preinstalled, with their versions), the SR-IOV node policies that advertise the
rails' resources, the RDMA netns mode and the IOMMU arguments its MachineConfigs set (OpenShift).
The workload's namespaces are yours to name (--namespace); NADs an operator generates are never
copied. Another team's nodes of the group (its GPU or RDMA pods run there, a taint or owner label
most nodes lack, a name unlike the others') go to node_shape.exclude_nodes, each reason a
discover.other-team warning. Rails whose addresses the export does not state get ranges sized
to the draft's pods (plus a quarter), apart from each other and from the export's ranges.
Inconsistencies are warnings on stderr. The export command names
types fully qualified and only those the cluster serves (`kubectl get a,b` stops at the first
type the cluster lacks). The draft is checked as `hkimgen validate` would before it is printed
or written; --output-file and -d never write through a symlink (--force replaces the path
whole). With --all-groups each GPU node group gets a profile of its own, cluster.name
<name>-<group> (its instance type, else its GPU product) and namespaces <namespace>-<group>
(one cluster's profiles need their own), written to DIR/<cluster.name>.yaml;
-d DIR is needed (or -o json, which holds every draft). Without --force no existing file is
replaced: if any of the files exists, none is written.
Names and values from the export appear in messages and comments with control characters
escaped. Exports may be up to 512 MiB (a larger file is refused before it is read).
A draft that does not validate (a value the export holds that no profile can) is still printed
or written, with each finding as a comment at its top, and the exit status is 1.
Exit status: 0 drafted, 1 invalid export, no GPU node, a draft that does not validate (written
with its findings), a --name that is not a DNS label, a usage error or a file that exists
without --force, 2 I/O failure.
Deprecated: `-o FILE` (now --output-file FILE) works for one release, with a warning.)";

// What `cluster.name` allows (a DNS label): --name also names the bundle's folder, so a name
// such as ../../etc/passwd is refused here, before anything is read.
bool IsDnsLabel(const std::string& name) {
  static const std::regex kLabel("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
  return std::regex_match(name, kLabel);
}

// The draft must read back as a profile that validates: whatever an export holds (a name with
// control characters, a value no schema pattern allows, a range of the cluster's that is too
// small for its nodes), discover never hands over a file `hkimgen validate` would refuse without
// saying so. Returns every error.
std::vector<Diagnostic> DraftFindings(const std::string& text) {
  DiagnosticSink check;
  std::optional<LoadedProfile> loaded = LoadProfileFromText("<draft>", text, check);
  if (loaded) CheckLoadedProfile(*loaded, check);
  std::vector<Diagnostic> findings;
  for (const Diagnostic& d : check.diagnostics())
    if (d.severity == Severity::kError) findings.push_back(d);
  return findings;
}

// The draft with what keeps it from validating as comments at its top: the file still holds
// everything the export told, and says what to fix first. Values from the export are escaped
// (one comment line each).
std::string WithFindingsAsComments(const std::string& text,
                                   const std::vector<Diagnostic>& findings) {
  std::string out = "# hkimgen discover: this draft does not validate yet (" +
                    std::to_string(findings.size()) +
                    (findings.size() == 1 ? " finding" : " findings") +
                    "); fix each, then run hkimgen validate on it:\n";
  for (const Diagnostic& d : findings) {
    out += "#   " + UntrustedText(d.data_path.empty() ? "/" : d.data_path) + ": " +
           UntrustedText(d.message) + " [" + d.rule + "]\n";
    if (!d.fix.empty()) out += "#     fix: " + UntrustedText(d.fix) + "\n";
  }
  return out + text;
}

// One draft on its way out: its text (with its findings as comments) and where it goes.
struct Outgoing {
  discover::Draft draft;
  std::string path;  // "" for stdout
  size_t findings = 0;
};

// Writes every draft to its path, each whole or not at all. Without --force nothing is written
// when any path exists (hkimgen replaces no file it was not asked to), and a failure removes
// the files this run created. Returns 0, 1 (a path exists) or 2 (I/O), with the findings on
// `sink`.
int WriteDrafts(const std::vector<Outgoing>& drafts, const DiscoverOptions& options,
                DiagnosticSink& sink) {
  auto exists = [&](const std::string& path) {
    sink.Report(Diagnostic{
        Severity::kError, SourceLocation{path, 0, 0}, "", "io.exists", "the file exists",
        options.output_dir.empty() ? "choose another --output-file, or add --force to overwrite it"
                                   : "choose another -d DIR or --name, or add --force to overwrite "
                                     "it"});
  };
  if (!options.force) {
    bool any = false;
    for (const Outgoing& d : drafts) {
      std::error_code ec;
      if (std::filesystem::symlink_status(d.path, ec).type() !=
          std::filesystem::file_type::not_found) {
        exists(d.path);
        any = true;
      }
    }
    if (any) return 1;
  }
  if (!options.output_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options.output_dir, ec);
    if (ec) {
      sink.Report(Diagnostic{Severity::kError, SourceLocation{options.output_dir, 0, 0}, "",
                             "io.write", "cannot create the folder: " + ec.message(),
                             "check that its parent is writable"});
      return 2;
    }
  }
  std::vector<std::string> created;
  for (const Outgoing& d : drafts) {
    std::string reason;
    const OutputFileStatus written = WriteOutputFile(d.path, d.draft.text, options.force, &reason);
    if (written == OutputFileStatus::kWritten) {
      if (!options.force) created.push_back(d.path);
      continue;
    }
    if (written == OutputFileStatus::kExists) {
      exists(d.path);
    } else {
      sink.Report(Diagnostic{Severity::kError, SourceLocation{d.path, 0, 0}, "", "io.write",
                             "cannot write the profile: " + reason,
                             "check that the folder exists and is writable"});
    }
    for (const std::string& path : created) std::filesystem::remove(path);
    return written == OutputFileStatus::kExists ? 1 : 2;
  }
  return 0;
}

}  // namespace

void SetupDiscoverCommand(CLI::App& app) {
  auto options = std::make_shared<DiscoverOptions>();
  auto output = std::make_shared<OutputChoice>();
  CLI::App* command = app.add_subcommand(
      "discover", "Draft a profile from a read-only kubectl export of a running cluster");
  command->add_option("FILE", options->inputs, "Export files (JSON or YAML); - reads stdin")
      ->required();
  command->add_option("--name", options->name, "Cluster name (a DNS label)");
  command
      ->add_option("--namespace", options->namespaces,
                   "Your workload's namespace (repeatable). Never inferred: the namespaces that "
                   "hold NADs are the SR-IOV operator's default and other teams'")
      ->type_name("NAME")
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            return IsDnsLabel(value)
                       ? std::string()
                       : "'" + value + "' is not a namespace name (a DNS label: a-z, 0-9, '-')";
          },
          "DNS label"));
  command->add_option("--output-file", options->output, "Write to FILE instead of stdout")
      ->type_name("FILE");
  command
      ->add_option("-d,--output-dir", options->output_dir,
                   "Write each draft to DIR/<cluster.name>.yaml (DIR is created if missing)")
      ->type_name("DIR");
  AddOutputOption(command, *output, kDiscoverFormats);
  command->add_flag("--force", options->force, "Overwrite the files when they exist");
  command->add_flag("--all-groups", options->all_groups,
                    "One profile per GPU node group, each named <name>-<group> in a file of its "
                    "own (needs -d DIR; default: the largest group only)");
  command->footer(kFooter);
  command->callback([options, output] {
    if (!ResolveOutputChoice(*output, kDiscoverFormats, "discover", "--output-file", "file",
                             std::cerr)) {
      FinishCommand(1);
    }
    if (!output->legacy_path.empty()) options->output = output->legacy_path;
    options->format = output->format;
    FinishCommand(RunDiscoverCommand(*options, std::cout, std::cerr));
  });
}

int RunDiscoverCommand(const DiscoverOptions& options, std::ostream& out, std::ostream& err) {
  if (!options.output.empty() && !options.output_dir.empty()) {
    return ReportUsage(
        "discover", options.format, "--output-file and -d DIR both name where to write",
        "use -d DIR (each draft as DIR/<cluster.name>.yaml) or --output-file FILE", out, err);
  }
  if (options.all_groups && !options.output.empty()) {
    return ReportUsage("discover", options.format,
                       "--all-groups drafts one file per GPU node group; --output-file names one",
                       "use -d DIR: each group's profile is written to DIR/<cluster.name>.yaml",
                       out, err);
  }
  if (options.all_groups && options.output_dir.empty() && options.format != "json") {
    return ReportUsage("discover", options.format,
                       "--all-groups drafts one file per GPU node group: it needs -d DIR",
                       "add -d DIR (e.g. -d profiles): each group's profile is written to "
                       "DIR/<cluster.name>.yaml",
                       out, err);
  }
  DiagnosticSink sink;
  SourceTexts sources;
  std::vector<Outgoing> drafts;
  size_t invalid = 0;
  if (!options.name.empty() && !IsDnsLabel(options.name)) {
    sink.Report(Diagnostic{Severity::kError, SourceLocation{"--name", 0, 0}, "", "cli.usage",
                           "--name " + QuoteUntrusted(options.name) +
                               " is not a DNS label (it names the cluster and its bundle folder)",
                           "use at most 63 lower-case letters, digits and '-', starting and "
                           "ending with a letter or digit, e.g. --name my-cluster"});
  } else {
    std::vector<discover::ExportInput> inputs;
    for (const std::string& path : options.inputs) {
      std::optional<discover::ExportInput> input = ReadExportInput(path, sink);
      if (input) inputs.push_back(std::move(*input));
    }
    std::vector<discover::Draft> drafted;
    if (!sink.HasErrors()) {
      drafted = discover::DiscoverDrafts(std::move(inputs),
                                         {options.name, options.all_groups, options.namespaces},
                                         sink, &sources);
    }
    for (discover::Draft& draft : drafted) {
      Outgoing going{std::move(draft), options.output, 0};
      if (!options.output_dir.empty())
        going.path =
            (std::filesystem::path(options.output_dir) / (going.draft.cluster_name + ".yaml"))
                .string();
      // A draft that does not validate is still the export's picture: written, with its
      // findings as comments, and exit 1.
      const std::vector<Diagnostic> findings = DraftFindings(going.draft.text);
      const std::string label =
          options.all_groups ? "<draft " + going.draft.cluster_name + ">" : "<draft>";
      for (const Diagnostic& d : findings) {
        sink.Report(Diagnostic{
            Severity::kError, SourceLocation{label, 0, 0}, d.data_path, "discover.draft-invalid",
            "the drafted profile does not validate (" + d.rule + ": " + d.message +
                "); the draft is written with this as a comment "
                "at its top",
            d.fix.empty() ? "fix the drafted value, then: hkimgen validate FILE"
                          : "in the draft: " + d.fix});
      }
      if (!findings.empty()) {
        going.findings = findings.size();
        going.draft.text = WithFindingsAsComments(going.draft.text, findings);
        ++invalid;
      }
      drafts.push_back(std::move(going));
    }
  }
  int status = drafts.empty() ? ExitCodeFor(sink) : invalid > 0 ? 1 : 0;
  if (!drafts.empty() && !drafts.front().path.empty()) {
    const int written = WriteDrafts(drafts, options, sink);
    if (written != 0) {
      status = written;
      drafts.clear();
    }
  }
  if (options.format == "json") {
    nlohmann::json result = nullptr;
    if (!drafts.empty()) {
      auto file = [](const Outgoing& d) {
        return d.path.empty() ? nlohmann::json(nullptr) : nlohmann::json(d.path);
      };
      result = {{"output_file", file(drafts.front())}, {"profile", drafts.front().draft.text}};
      nlohmann::json all = nlohmann::json::array();
      for (const Outgoing& d : drafts)
        all.push_back({{"cluster_name", d.draft.cluster_name},
                       {"output_file", file(d)},
                       {"valid", d.findings == 0},
                       {"profile", d.draft.text}});
      result["drafts"] = std::move(all);
    }
    out << DumpJson(JsonReport("discover", status, sink, result)) << '\n';
    return status;
  }
  PrintDiagnostics(sink, sources, err);
  if (drafts.empty()) return status;
  if (drafts.front().path.empty()) {
    out << drafts.front().draft.text;
    out.flush();
    if (!out) {
      err << "<stdout>: error: cannot write the profile [io.write]\n";
      return 2;
    }
    return status;
  }
  for (const Outgoing& d : drafts) {
    const std::string shown = UntrustedText(d.path);
    if (d.findings > 0) {
      err << "wrote " << shown << ", which does not validate yet (" << d.findings
          << " finding(s), as comments at its top); fix them, then: hkimgen validate " << shown
          << "\n";
    } else {
      err << "wrote " << shown << "; next: hkimgen validate " << shown << "\n";
    }
  }
  return status;
}

}  // namespace hkim

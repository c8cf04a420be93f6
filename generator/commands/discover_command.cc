#include "commands/discover_command.h"

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
    | paste -sd, -) > cluster-export.json        # README has the full list of types
  hkimgen discover cluster-export.json --name my-cluster --namespace ml-team \
    --output-file profiles/my-cluster.yaml
  hkimgen validate profiles/my-cluster.yaml --cluster cluster-export.json
  oc get nodes,sriovnetworknodestates.sriovnetwork.openshift.io -A -o yaml | hkimgen discover -

Reads only the export (JSON or YAML; a List, single objects, several files). Every inferred
value carries a comment naming the object and field it came from; what an export cannot tell is
a safe default marked TODO. What the cluster runs already is adopted, not installed again: its
operators (preinstalled, with their versions), the SR-IOV node policies that advertise the
rails' resources, the RDMA netns mode and the IOMMU arguments its MachineConfigs set (OpenShift).
The workload's namespaces are yours to name (--namespace); NADs an operator generates are never
copied. Inconsistencies are warnings on stderr. The export command names
types fully qualified and only those the cluster serves (`kubectl get a,b` stops at the first
type the cluster lacks). The draft is checked as `hkimgen validate` would before it is printed
or written; --output-file never writes through a symlink (--force replaces the path whole).
Names and values from the export appear in messages and comments with control characters
escaped. Exports may be up to 512 MiB (a larger file is refused before it is read).
A draft that does not validate (a value the export holds that no profile can) is still printed
or written, with each finding as a comment at its top, and the exit status is 1.
Exit status: 0 drafted, 1 invalid export, no GPU node, a draft that does not validate (written
with its findings) or a --name that is not a DNS label, 2 I/O failure.
Deprecated: `-o FILE` (now --output-file FILE) works for one release, with a warning.)";

// What `cluster.name` allows (a DNS label): --name also names the bundle's folder, so a name
// such as ../../etc/passwd is refused here, before anything is read.
bool IsDnsLabel(const std::string& name) {
  static const std::regex kLabel("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
  return std::regex_match(name, kLabel);
}

// The draft must read back as a profile that validates: whatever an export holds (a name with
// control characters, a value no schema pattern allows, more nodes than a drafted range holds),
// discover never hands over a file `hkimgen validate` would refuse without saying so. Each `---`
// document is checked on its own; returns every error, each with its document's number (from 1).
std::vector<std::pair<size_t, Diagnostic>> DraftFindings(const std::string& text) {
  std::vector<std::string> documents;
  std::size_t start = 0;
  while (true) {
    const std::size_t next = text.find("\n---\n", start);
    documents.push_back(text.substr(start, next == std::string::npos ? next : next + 1 - start));
    if (next == std::string::npos) break;
    start = next + 5;
  }
  std::vector<std::pair<size_t, Diagnostic>> findings;
  for (size_t i = 0; i < documents.size(); ++i) {
    DiagnosticSink check;
    std::optional<LoadedProfile> loaded = LoadProfileFromText("<draft>", documents[i], check);
    if (loaded) CheckLoadedProfile(*loaded, check);
    for (const Diagnostic& d : check.diagnostics())
      if (d.severity == Severity::kError) findings.push_back({i + 1, d});
  }
  return findings;
}

// The draft with what keeps it from validating as comments at its top: the file still holds
// everything the export told, and says what to fix first. Values from the export are escaped
// (one comment line each).
std::string WithFindingsAsComments(const std::string& text,
                                   const std::vector<std::pair<size_t, Diagnostic>>& findings,
                                   bool several_documents) {
  std::string out = "# hkimgen discover: this draft does not validate yet (" +
                    std::to_string(findings.size()) +
                    (findings.size() == 1 ? " finding" : " findings") +
                    "); fix each, then run hkimgen validate on it:\n";
  for (const auto& [document, d] : findings) {
    out += "#   ";
    if (several_documents) out += "document " + std::to_string(document) + ", ";
    out += UntrustedText(d.data_path.empty() ? "/" : d.data_path) + ": " +
           UntrustedText(d.message) + " [" + d.rule + "]\n";
    if (!d.fix.empty()) out += "#     fix: " + UntrustedText(d.fix) + "\n";
  }
  return out + text;
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
  AddOutputOption(command, *output, kDiscoverFormats);
  command->add_flag("--force", options->force, "Overwrite FILE when it exists");
  command->add_flag("--all-groups", options->all_groups,
                    "One profile document per GPU node group (default: the largest group)");
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
  DiagnosticSink sink;
  SourceTexts sources;
  std::string text;
  int status = 0;
  std::vector<std::pair<size_t, Diagnostic>> findings;
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
    if (!sink.HasErrors()) {
      text = discover::Discover(std::move(inputs),
                                {options.name, options.all_groups, options.namespaces}, sink,
                                &sources);
    }
    if (!sink.HasErrors()) findings = DraftFindings(text);
    for (const auto& [document, d] : findings) {
      sink.Report(Diagnostic{Severity::kError, SourceLocation{"<draft>", 0, 0}, d.data_path,
                             "discover.draft-invalid",
                             "the drafted profile does not validate (" + d.rule + ": " +
                                 d.message + "); the draft is written with this as a comment at "
                                             "its top",
                             d.fix.empty() ? "fix the drafted value, then: hkimgen validate FILE"
                                           : "in the draft: " + d.fix});
    }
  }
  // A draft that does not validate is still the export's picture: written, with its findings
  // as comments, and exit 1.
  if (sink.HasErrors() && findings.empty()) {
    status = ExitCodeFor(sink);
  } else {
    if (!findings.empty()) {
      status = 1;
      text = WithFindingsAsComments(text, findings, text.find("\n---\n") != std::string::npos);
    }
    if (!options.output.empty()) {
      std::string reason;
      const OutputFileStatus written =
          WriteOutputFile(options.output, text, options.force, &reason);
      const SourceLocation file{options.output, 0, 0};
      if (written == OutputFileStatus::kExists) {
        sink.Report(Diagnostic{Severity::kError, file, "", "io.exists", "the file exists",
                               "choose another --output-file, or add --force to overwrite it"});
        status = 1;
        findings.clear();
      } else if (written == OutputFileStatus::kFailed) {
        sink.Report(Diagnostic{Severity::kError, file, "", "io.write",
                               "cannot write the profile: " + reason,
                               "check that the folder exists and is writable"});
        status = 2;
        findings.clear();
      }
    }
  }
  const bool drafted = status == 0 || !findings.empty();
  if (options.format == "json") {
    nlohmann::json result = nullptr;
    if (drafted) {
      result = {{"output_file", options.output.empty() ? nlohmann::json(nullptr)
                                                       : nlohmann::json(options.output)},
                {"profile", text}};
    }
    out << DumpJson(JsonReport("discover", status, sink, result)) << '\n';
    return status;
  }
  PrintDiagnostics(sink, sources, err);
  if (!drafted) return status;
  if (options.output.empty()) {
    out << text;
    out.flush();
    if (!out) {
      err << "<stdout>: error: cannot write the profile [io.write]\n";
      return 2;
    }
    return status;
  }
  const std::string shown = UntrustedText(options.output);
  if (status != 0) {
    err << "wrote " << shown << ", which does not validate yet (" << findings.size()
        << " finding(s), as comments at its top); fix them, then: hkimgen validate " << shown
        << "\n";
    return status;
  }
  err << "wrote " << shown << "; next: hkimgen validate " << shown << "\n";
  return 0;
}

}  // namespace hkim

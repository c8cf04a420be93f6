#include "commands/discover_command.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <regex>

#include "commands/cli_support.h"
#include "discover/discover.h"
#include "support/input_file.h"
#include "pipeline/pipeline.h"

namespace hkim {
namespace {

const std::vector<std::string> kDiscoverFormats = {"yaml"};

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
type the cluster lacks). The draft passes `hkimgen validate DRAFT --cluster EXPORT`.
Exit status: 0 drafted, 1 invalid export or no GPU node, 2 I/O failure.
Deprecated: `-o FILE` (now --output-file FILE) works for one release, with a warning.)";

bool ReadInput(const std::string& path, discover::ExportInput& input, DiagnosticSink& sink) {
  input.path = InputLabel(path);
  std::string reason;
  std::optional<std::string> text = ReadInputText(path, &reason);
  if (!text) {
    sink.Report(Diagnostic{Severity::kError, SourceLocation{input.path, 0, 0}, "", "io.read",
                           "cannot read the export: " + reason,
                           "check the path and its permissions"});
    return false;
  }
  input.text = std::move(*text);
  return true;
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
            static const std::regex kDnsLabel("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
            return std::regex_match(value, kDnsLabel)
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
    FinishCommand(RunDiscoverCommand(*options, std::cout, std::cerr));
  });
}

int RunDiscoverCommand(const DiscoverOptions& options, std::ostream& out, std::ostream& err) {
  DiagnosticSink sink;
  SourceTexts sources;
  std::vector<discover::ExportInput> inputs(options.inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) ReadInput(options.inputs[i], inputs[i], sink);
  std::string text;
  if (!sink.HasErrors()) {
    text = discover::Discover(inputs, {options.name, options.all_groups, options.namespaces}, sink,
                              &sources);
  }
  PrintDiagnostics(sink, sources, err);
  if (sink.HasErrors()) return ExitCodeFor(sink);
  if (options.output.empty()) {
    out << text;
    return 0;
  }
  std::error_code ec;
  if (!options.force && std::filesystem::exists(options.output, ec)) {
    err << options.output << ": error: the file exists [io.exists]\n  fix: choose another "
        << "--output-file, or add --force to overwrite it\n";
    return 1;
  }
  std::ofstream file(options.output, std::ios::binary | std::ios::trunc);
  file << text;
  file.close();
  if (!file) {
    err << options.output << ": error: cannot write the profile [io.write]\n";
    return 2;
  }
  err << "wrote " << options.output << "; next: hkimgen validate " << options.output << "\n";
  return 0;
}

}  // namespace hkim

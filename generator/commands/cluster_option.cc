#include "commands/cluster_option.h"

#include "support/input_file.h"
#include "support/input_limits.h"

namespace hkim {

void AddClusterOption(CLI::App* command, std::vector<std::string>& exports) {
  command->add_option("--cluster", exports,
                      "Also check against a live cluster's export (kubectl get ... -o json; - "
                      "reads stdin): nodes, rails, resources, preconditions, takeover")
      ->type_name("FILE")
      ->allow_extra_args(false);
}

std::unique_ptr<cluster_check::ClusterExport> ReadClusterExport(
    const std::vector<std::string>& paths, DiagnosticSink& sink, SourceTexts& sources) {
  std::vector<discover::ExportInput> inputs;
  for (const std::string& path : paths) {
    std::string reason;
    std::optional<std::string> text = ReadInputText(path, &reason, limits::kMaxExportBytes);
    if (!text) {
      sink.Report(Diagnostic{Severity::kError, SourceLocation{InputLabel(path), 0, 0}, "",
                             "io.read", "cannot read the cluster export: " + reason,
                             std::string("export the cluster with: ") + discover::kExportCommand});
      return nullptr;
    }
    inputs.push_back({InputLabel(path), std::move(*text)});
  }
  DiagnosticSink load;
  auto cluster = cluster_check::LoadClusterExport(std::move(inputs), load, &sources);
  for (const Diagnostic& d : load.diagnostics()) sink.Report(d);
  if (load.HasErrors()) return nullptr;
  return cluster;
}

}  // namespace hkim

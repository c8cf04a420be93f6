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

std::optional<discover::ExportInput> ReadExportInput(const std::string& path,
                                                     DiagnosticSink& sink) {
  BoundedInput read = ReadBoundedInput(path, limits::kMaxExportBytes);
  if (read.stdin_taken) {
    sink.Report(Diagnostic{Severity::kError, SourceLocation{InputLabel(path), 0, 0}, "",
                           "cli.usage", "the cluster export cannot be read from stdin: " + read.reason,
                           "give the export as a file (stdin is one input: `-` once per command)"});
    return std::nullopt;
  }
  if (!read.text) {
    const bool size = read.too_large;
    sink.Report(Diagnostic{Severity::kError, SourceLocation{InputLabel(path), 0, 0}, "",
                           size ? "limit.file-size" : "io.read",
                           "cannot read the cluster export: " + read.reason,
                           size ? "export only the types hkimgen reads: " +
                                      std::string(discover::kExportCommand)
                                : "check the path and its permissions, or export the cluster "
                                  "with: " +
                                      std::string(discover::kExportCommand)});
    return std::nullopt;
  }
  return discover::ExportInput{InputLabel(path), std::move(*read.text)};
}

std::unique_ptr<cluster_check::ClusterExport> ReadClusterExport(
    const std::vector<std::string>& paths, DiagnosticSink& sink, SourceTexts& sources) {
  std::vector<discover::ExportInput> inputs;
  for (const std::string& path : paths) {
    std::optional<discover::ExportInput> input = ReadExportInput(path, sink);
    if (!input) return nullptr;
    inputs.push_back(std::move(*input));
  }
  DiagnosticSink load;
  auto cluster = cluster_check::LoadClusterExport(std::move(inputs), load, &sources);
  for (const Diagnostic& d : load.diagnostics()) sink.Report(d);
  if (load.HasErrors()) return nullptr;
  return cluster;
}

nlohmann::json ClusterComparison::NodeTablesJson() const {
  nlohmann::json profiles = nlohmann::json::array();
  for (const cluster_check::ProfileReport& report : reports) {
    profiles.push_back(cluster_check::NodeTableJson(report));
  }
  return {{"export", export_label}, {"profiles", profiles}};
}

std::string ClusterComparison::NodeTables() const {
  std::string text;
  for (const cluster_check::ProfileReport& report : reports) {
    text += cluster_check::FormatNodeTable(report);
  }
  return text;
}

std::optional<ClusterComparison> CompareWithCluster(const std::vector<std::string>& paths,
                                                    const std::vector<ClusterSubject>& subjects,
                                                    DiagnosticSink& sink, SourceTexts& sources) {
  std::unique_ptr<cluster_check::ClusterExport> cluster = ReadClusterExport(paths, sink, sources);
  if (!cluster) return std::nullopt;
  ClusterComparison comparison;
  comparison.export_label = cluster->label;
  comparison.findings.resize(subjects.size());
  for (size_t i = 0; i < subjects.size(); ++i) {
    const ClusterSubject& s = subjects[i];
    comparison.reports.push_back(cluster_check::CheckProfile(*s.profile, *s.plan, *s.loaded,
                                                             *cluster, comparison.findings[i]));
  }
  if (!subjects.empty()) {
    cluster_check::CheckUnpickedNodes(comparison.reports, *subjects.front().profile,
                                      *subjects.front().loaded, *cluster, comparison.unpicked);
  }
  return comparison;
}

}  // namespace hkim

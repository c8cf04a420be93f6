#pragma once

// `--cluster FILE|-` on validate, lint and render --check: the cluster export to compare the
// profiles with (cluster_check.h), read and compared here so that every command does it alike.

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster_check/cluster_check.h"

namespace hkim {

/// Adds --cluster (repeatable: an export split over several files) to `command`.
void AddClusterOption(CLI::App* command, std::vector<std::string>& exports);

/// Reads one export file ("-": stdin) with the export's size limit, refused before reading when
/// the size is known (limit.file-size, io.read to `sink`); nullopt on failure. discover and
/// --cluster both read exports through this.
std::optional<discover::ExportInput> ReadExportInput(const std::string& path, DiagnosticSink& sink);

/// Reads and parses the exports (io.read and syntax errors to `sink`); nullptr on failure.
std::unique_ptr<cluster_check::ClusterExport> ReadClusterExport(
    const std::vector<std::string>& paths, DiagnosticSink& sink, SourceTexts& sources);

/// One profile to compare with the cluster: its typed model, its plan and its document.
struct ClusterSubject {
  const Profile* profile = nullptr;
  const BundlePlan* plan = nullptr;
  const LoadedProfile* loaded = nullptr;
};

/// What --cluster found: one report and one set of findings per subject, in their order, and the
/// nodes no subject picks (located in the first subject's document).
struct ClusterComparison {
  std::string export_label;
  std::vector<cluster_check::ProfileReport> reports;
  std::vector<DiagnosticSink> findings;
  DiagnosticSink unpicked;

  /// The per-node tables: {"export", "profiles": [one per subject]}.
  nlohmann::json NodeTablesJson() const;
  /// The per-node tables as text, one per subject.
  std::string NodeTables() const;
};

/// Reads the exports at `paths` and compares each subject with them (validate, lint and
/// render --check all come here); nullopt when the exports cannot be read (errors to `sink`).
std::optional<ClusterComparison> CompareWithCluster(const std::vector<std::string>& paths,
                                                    const std::vector<ClusterSubject>& subjects,
                                                    DiagnosticSink& sink, SourceTexts& sources);

}  // namespace hkim

#pragma once

// `--cluster FILE|-` on validate, lint and render --check: the cluster export to compare the
// profiles with (cluster_check.h), read here so that every command reads it alike.

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

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

}  // namespace hkim

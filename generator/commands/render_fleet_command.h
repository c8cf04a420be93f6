#pragma once

// `hkimgen render A.yaml B.yaml ... -d DIR` (or a folder, or a quoted pattern): a fleet
// (fleet/fleet.h), written all or nothing (fleet/write_fleet.h). Also the progress line both render paths
// share.

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>

#include "commands/render_command.h"

namespace hkim {

/// Adds the fleet's options to `render`: -j/--jobs, --fleet-path, --fleet-name,
/// --fleet-namespace.
void AddFleetOptions(CLI::App* render, RenderOptions& options);

/// The same options into these fields, for the commands that render a fleet without writing it
/// (`diff`: the comparison needs the same folder and projects as the render).
void AddFleetOptions(CLI::App* command, unsigned& jobs, std::string& fleet_path,
                     std::string& fleet_name, std::string& fleet_namespace);

/// Whether a render shows its progress line on `err`: stderr is a terminal, `err` is stderr,
/// and neither -q nor -o json was given.
bool ShowProgress(const RenderOptions& options, const std::ostream& err);

/// Renders every profile of `options.profiles` into `options.output_dir` (or compares, with
/// --check). Diagnostics and "wrote N bundles ...: what changed" on `err`; with -o json the one JSON report on
/// `out`. Returns the exit status as RunRenderCommand does.
int RunRenderFleetCommand(const RenderOptions& options, std::ostream& out, std::ostream& err);

}  // namespace hkim

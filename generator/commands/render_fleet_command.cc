#include "commands/render_fleet_command.h"

#include <iostream>
#include <optional>

#include "commands/acceptance.h"
#include "commands/cli_support.h"
#include "fleet/fleet.h"
#include "pipeline/pipeline.h"
#include "support/interrupt.h"
#include "support/leave_to_exit.h"
#include "support/progress.h"
#include "fleet/write_fleet.h"
#include "write/write.h"

namespace hkim {

namespace {

Diagnostic UsageError(const std::string& message, const std::string& fix) {
  return Diagnostic{Severity::kError, {}, "", "cli.usage", message, fix};
}

FleetInputs InputsFor(const RenderOptions& options, RenderProgress& progress,
                      DiagnosticSink& sink) {
  FleetInputs inputs;
  inputs.profiles = ExpandProfileArgs(options.profiles, sink);
  inputs.extra_files = options.extra_files;
  inputs.set_values = options.set_values;
  LayerInputs digest;
  if (WrapperDigestLayer(options.wrapper_digest, options.wrapper_digest_given, digest, sink) &&
      ImageDigestLayer(options.image_digests, digest, sink)) {
    inputs.set_values.insert(inputs.set_values.end(), digest.set_values.begin(),
                             digest.set_values.end());
  }
  inputs.settings.name = options.fleet_name;
  inputs.settings.argocd_namespace = options.fleet_namespace;
  inputs.settings.repo_path = FleetRepoPath(options.output_dir, options.fleet_path, sink);
  inputs.jobs = options.jobs;
  inputs.check = options.verify ? RenderCheck::kReparse : RenderCheck::kByConstruction;
  inputs.progress = [&progress](size_t planned, size_t rendered) {
    progress.Add(planned, rendered);
  };
  const std::vector<std::string> allow = options.allow;
  inputs.accept = [allow](const DiagnosticSink& one, const LoadedProfile* merged) {
    return AcceptWarnings(one, merged, allow);
  };
  return inputs;
}

/// The fleet render as the user would type it again: the profile arguments (quoted where the
/// shell would expand or split them), -d and the fleet flags given.
std::string FleetCommandLine(const RenderOptions& options) {
  auto quoted = [](const std::string& arg) {
    return arg.find_first_of("*?[ \t'\"$") == std::string::npos ? arg : "'" + arg + "'";
  };
  std::string line = "hkimgen render";
  for (const std::string& profile : options.profiles) line += " " + quoted(profile);
  line += " -d " + quoted(options.output_dir);
  for (const std::string& file : options.extra_files) line += " -f " + quoted(file);
  for (const std::string& value : options.set_values) line += " --set " + quoted(value);
  if (!options.wrapper_digest.empty()) line += " --wrapper-digest " + options.wrapper_digest;
  for (const std::string& pin : options.image_digests) line += " --image-digest " + quoted(pin);
  if (!options.fleet_path.empty()) line += " --fleet-path " + quoted(options.fleet_path);
  if (options.fleet_name != RenderOptions{}.fleet_name) {
    line += " --fleet-name " + quoted(options.fleet_name);
  }
  if (options.fleet_namespace != RenderOptions{}.fleet_namespace) {
    line += " --fleet-namespace " + quoted(options.fleet_namespace);
  }
  return line;
}

/// Renders and writes (or checks) the fleet; the number of bundles, 0 after an error.
size_t RenderAndWrite(const RenderOptions& options, const FleetInputs& inputs, std::ostream& err,
                      DiagnosticSink& sink, SourceTexts& sources, FleetWriteSummary* summary) {
  std::optional<RenderedFleet> fleet = RenderFleet(inputs, sink, &sources);
  if (!fleet) return 0;
  const size_t bundles = fleet->members.size();
  if (options.check) {
    const bool current =
        CheckFleetDir(*fleet, options.output_dir, sink, FleetCommandLine(options));
    LeaveToExit(std::move(*fleet));  // support/leave_to_exit.h: freed with the process
    return current ? bundles : 0;
  }
  WriteDirOptions dir_options;
  dir_options.force = options.force;
  dir_options.wait = !options.no_wait;
  for (const auto& [file, lines] : sources) dir_options.inputs.push_back(file);
  dir_options.waiting = [&err, dir = options.output_dir] {
    err << "hkimgen: another render is writing into " << dir
        << "; waiting for it to finish (--no-wait fails instead)" << std::endl;
  };
  const bool written =
      WriteFleetDir(*fleet, options.output_dir, sink, dir_options, inputs.jobs, summary);
  LeaveToExit(std::move(*fleet));
  return written ? bundles : 0;
}

}  // namespace

void AddFleetOptions(CLI::App* render, RenderOptions& options) {
  AddFleetOptions(render, options.jobs, options.fleet_path, options.fleet_name,
                  options.fleet_namespace);
}

void AddFleetOptions(CLI::App* command, unsigned& jobs, std::string& fleet_path,
                     std::string& fleet_name, std::string& fleet_namespace) {
  command->add_option("-j,--jobs", jobs,
                      "Threads: a fleet's profiles at once, or (render) one profile's objects "
                      "rendered and files written at once (default: every core, or "
                      "$HKIMGEN_JOBS); the output is the same for any number");
  command->add_option("--fleet-path", fleet_path,
                      "Fleet: DIR's path inside the git repository, for Argo CD (default: DIR "
                      "as given, when it is relative: run from the repository's top)");
  command->add_option("--fleet-name", fleet_name,
                      "Fleet: name of the ApplicationSet, its AppProject and _fleet/'s Application")
      ->capture_default_str();
  command->add_option("--fleet-namespace", fleet_namespace,
                      "Fleet: namespace of the central Argo CD (its Applications, AppProjects "
                      "and ApplicationSet)")
      ->capture_default_str();
}

bool ShowProgress(const RenderOptions& options, const std::ostream& err) {
  return !options.quiet && options.format != "json" && &err == &std::cerr && IsTerminal(2);
}

int RunRenderFleetCommand(const RenderOptions& options, std::ostream& out, std::ostream& err) {
  // Ctrl-C while rendering or writing: no staging folder left, DIR as it was, exit 130.
  if (!options.output_dir.empty() && !options.check) CatchInterrupts();
  DiagnosticSink sink;
  SourceTexts sources;
  size_t bundles = 0;
  FleetWriteSummary summary;
  RenderProgress progress;
  std::optional<ProgressDisplay> display;
  display.emplace(progress, err, ShowProgress(options, err));
  if (options.output_dir.empty() && (options.check || options.format == "json")) {
    sink.Report(UsageError(options.check ? "several profiles (a fleet) need -d DIR with --check"
                                         : "a fleet on stdout is one YAML stream; -o json needs -d DIR",
                           "add -d with the folder that gets one bundle folder per cluster and "
                           "_fleet/, e.g. -d out"));
  } else if (options.output_dir.empty()) {
    // A fleet on stdout (kubeconform users pipe): every cluster's bundle, then _fleet/, as one
    // YAML stream, each document headed by its template. The Argo CD paths are --fleet-path's
    // (default "fleet"), as if the fleet were written to -d fleet.
    RenderOptions stdout_options = options;
    stdout_options.output_dir = options.fleet_path.empty() ? "fleet" : options.fleet_path;
    const FleetInputs inputs = InputsFor(stdout_options, progress, sink);
    std::optional<RenderedFleet> fleet;
    if (!sink.HasErrors()) fleet = RenderFleet(inputs, sink, &sources);
    display.reset();
    if (fleet) {
      for (const FleetMember& member : fleet->members) {
        if (!WriteBundleStream(member.render.bundle, out, sink)) break;
      }
      if (!sink.HasErrors()) WriteBundleStream(fleet->fleet, out, sink);
      LeaveToExit(std::move(*fleet));
    }
    PrintDiagnostics(sink, sources, err, /*notes=*/!options.quiet);
    return ExitCodeFor(sink);
  } else {
    const FleetInputs inputs = InputsFor(options, progress, sink);
    if (!sink.HasErrors()) bundles = RenderAndWrite(options, inputs, err, sink, sources, &summary);
  }
  display.reset();  // erase the progress line before anything else is printed
  const int status = ExitCodeFor(sink);
  if (options.format == "json") {
    nlohmann::json result;
    if (status == 0) {
      result = {{"output_dir", options.output_dir}, {"bundles", bundles}};
      if (!options.check) {
        result["folders_changed"] = summary.folders_changed;
        result["folders_unchanged"] = summary.folders_unchanged;
        result["files"] = summary.files.files;
        result["added"] = summary.files.added;
        result["changed"] = summary.files.changed;
        result["removed"] = summary.files.removed;
      }
    }
    out << JsonReport("render", status, sink, result)
               .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
        << '\n';
    return status;
  }
  PrintDiagnostics(sink, sources, err, /*notes=*/!options.quiet);
  if (status == 0 && !options.quiet && !options.check) {
    // What changed, as a single render says it: a fleet rendered again unchanged says so.
    err << "wrote " << bundles << " bundles and " << kFleetFolder << "/ to "
        << options.output_dir << ": " << summary.folders_changed << " folder(s) changed, "
        << summary.folders_unchanged << " unchanged; files: " << summary.files.changed
        << " changed, " << summary.files.added << " added, " << summary.files.removed
        << " removed\n";
  }
  LeaveToExit(std::move(sources));  // every profile's lines (support/leave_to_exit.h)
  LeaveToExit(std::move(sink));
  return status;
}

}  // namespace hkim

#include "commands/render_command.h"

#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <sstream>

#include "cluster_check/cluster_check.h"
#include "commands/acceptance.h"
#include "commands/cluster_option.h"
#include "commands/cli_support.h"
#include "commands/layer_options.h"
#include "support/diagnostics_format.h"
#include "commands/render_fleet_command.h"
#include "commands/rule_ids.h"
#include "fleet/fleet.h"
#include "fleet/write_fleet.h"
#include "pipeline/pipeline.h"
#include "pipeline/prepare.h"
#include "plan/bundle_graph.h"
#include "render/rendered_json.h"
#include "support/interrupt.h"
#include "support/leave_to_exit.h"
#include "support/progress.h"
#include "write/write.h"

namespace hkim {

namespace {

// A single bundle has thousands of objects and files: as many threads as -j allows.
constexpr size_t kManyTasks = 1024;

const std::vector<std::string> kFormats = {"yaml", "json"};

constexpr char kFooter[] = R"footer(
Examples:
  # Print the bundle as one YAML stream (each document headed "# Source: templates/...")
  hkimgen render profiles/barcelona-h100-cx7.yaml

  # Write one file per object, plus kustomization.yaml and the Argo CD Application
  hkimgen render profiles/barcelona-h100-cx7.yaml -d out/barcelona-h100-cx7

  # In CI: fail (exit 1) and name the files when the committed bundle is stale
  hkimgen render profiles/barcelona-h100-cx7.yaml -d out/barcelona-h100-cx7 --check

  # One JSON document on stdout (objects, or what was written, and the diagnostics)
  hkimgen render profiles/oke-h100.yaml -o json

  # A fleet: every profile of a folder (or several files, or a quoted pattern) rendered in
  # parallel into one folder per cluster plus _fleet/ (AppProjects + ApplicationSet); all or
  # nothing. `kubectl apply -f out/_fleet/application.yaml` on the central Argo CD brings every
  # cluster up.
  hkimgen render 'profiles/oke-*.yaml' -d out
  hkimgen render 'profiles/oke-*.yaml' -d fleet --fleet-path deploy/fleet --check

  # The bundle as a tree: its Applications in the order they sync, who syncs each (itself, or
  # `argocd app sync NAME`), their sync waves, the kinds in each (count), what each disrupts
  hkimgen render profiles/oke-h100.yaml --tree
  hkimgen render profiles/oke-h100.yaml --tree -o json     # the same graph as result.tree

  # Pin the init containers' wrapper image by the digest of the image that was published
  hkimgen render profiles/oke-h100.yaml -d deploy/oke-h100 \
      --wrapper-digest "$(skopeo inspect --format '{{.Digest}}' oci:build/image:0.1.0)"

  # Pin any image the profile names by digest (repeatable; the lint.image-digest warning goes)
  hkimgen render profiles/oke-h100.yaml -d deploy/oke-h100 --image-digest \
      "docker.io/library/oraclelinux:9=$(skopeo inspect --format '{{.Digest}}' \
      docker://docker.io/library/oraclelinux:9)"

  # The profile from stdin, two values overridden, one warning accepted
  cat profiles/oke-h100.yaml | hkimgen render - --set workload.replicas=4,nccl.debug=INFO \
      --allow lint.image-latest

Errors name file:line:col, the data path, the rule broken and a fix. A failed render leaves the
output directory exactly as it was; an unchanged file is never rewritten. With -d, stderr says
what was written ("wrote 15 files to DIR: 1 changed, 0 added, 0 removed"); -q silences it.
A render still running after a second shows "rendered N/M objects" on stderr when stderr is a
terminal (not with -q).
Deprecated: `-o DIR` (now -d DIR) still works for one release, with a warning.
-d DIR is replaced only when it is missing, empty or a bundle hkimgen wrote (it holds
.hkimgen-bundle); files a user added to a bundle are kept and reported; anything else is refused
unless --force. The folder holding the profile, the current directory and its parents are never
written. Renders into one folder take turns (--no-wait fails instead of waiting).
Exit status: 0 ok, 1 invalid profile (or stale DIR with --check), 2 I/O or internal failure.)footer";

RenderSettings WithAdjust(RenderSettings settings, std::function<void(Profile&)> adjust) {
  settings.adjust_profile = std::move(adjust);
  return settings;
}

// -o json without -d: every object as JSON (parsed back from its YAML), by file name. The
// README stays text. A rendered file that does not parse is hkimgen's own bug: reported as such.
nlohmann::json ObjectsJson(const RenderedBundle& bundle, DiagnosticSink& sink) {
  nlohmann::json files = nlohmann::json::array();
  for (const RenderedFile& file : bundle.files) {
    nlohmann::json entry = {{"file", file.file_name}, {"template", file.template_name}};
    std::string error;
    std::optional<nlohmann::json> doc;
    if (!IsMarkdown(file.file_name)) doc = RenderedDocumentJson(file.content, &error);
    if (doc) {
      entry["object"] = std::move(*doc);
    } else {
      entry["text"] = file.content;
      if (!error.empty()) {
        sink.Report(Diagnostic{Severity::kError, {file.file_name, 0, 0}, "", "render.invalid-yaml",
                               "the rendered file does not read back as YAML: " + error,
                               "report this bug with the profile; the YAML output (without "
                               "-o json) shows the file"});
      }
    }
    files.push_back(std::move(entry));
  }
  return files;
}

// --check's fix: the render that brings DIR up to date, with this command's profile and layers.
std::string CheckFix(const RenderOptions& options) {
  std::string command = "hkimgen render " + options.profile;
  for (const std::string& file : options.extra_files) command += " -f " + file;
  command += " -d " + options.output_dir;
  return "run `" + command + "`" +
         (options.set_values.empty() && options.image_digests.empty() &&
                  !options.wrapper_digest_given
              ? ""
              : " with this command's --set and digest flags") +
         " and commit the result";
}

// The write stage, with -d DIR written as write/write.h's WriteDirOptions say: the flags, and every
// input file (profile, -f layers, extends bases) protected.
bool WriteRendered(const RenderedBundle& bundle, const RenderOptions& options,
                   const SourceTexts& sources, std::ostream& stream, std::ostream& err,
                   DiagnosticSink& sink, WriteCounts* counts, WriteBehind* behind) {
  if (options.output_dir.empty() || options.check) {
    return WriteStage(bundle, WriteTarget{options.output_dir, options.check, CheckFix(options)},
                      stream, sink);
  }
  WriteDirOptions dir_options;
  dir_options.force = options.force;
  dir_options.wait = !options.no_wait;
  dir_options.jobs = WorkerCount(options.jobs, kManyTasks);
  dir_options.behind = behind;
  dir_options.inputs = {options.profile};
  for (const auto& [file, lines] : sources) dir_options.inputs.push_back(file);
  dir_options.waiting = [&err, dir = options.output_dir] {
    err << "hkimgen: another render is writing next to " << dir
        << "; waiting for it to finish (--no-wait fails instead)" << std::endl;
  };
  return WriteBundleDir(bundle, options.output_dir, sink, dir_options, counts);
}

// render --check --cluster: the profile against the cluster export, beside the folder check.
void CheckRenderAgainstCluster(const RenderOptions& options, const LayeredProfile& layered,
                               SourceTexts& sources, std::ostream& err, DiagnosticSink& sink) {
  DiagnosticSink scratch;  // the render reported the profile's own findings already
  std::optional<Profile> profile = BuildProfile(layered.merged, scratch);
  if (!profile) return;
  const BundlePlan plan = PlanBundle(*profile);
  std::optional<ClusterComparison> comparison =
      CompareWithCluster(options.cluster, {{&*profile, &plan, &layered.merged}}, sink, sources);
  if (!comparison) return;
  for (const Diagnostic& d : comparison->findings.front().diagnostics()) sink.Report(d);
  for (const Diagnostic& d : comparison->unpicked.diagnostics()) sink.Report(d);
  if (isatty(STDERR_FILENO)) err << comparison->NodeTables();
}

}  // namespace

namespace {

// "sha256:" then 64 lower-case hex digits: a manifest digest as skopeo and the registries
// print it.
bool WellFormedDigest(const std::string& digest) {
  constexpr std::string_view kAlgorithm = "sha256:";
  return digest.size() == kAlgorithm.size() + 64 &&
         digest.compare(0, kAlgorithm.size(), kAlgorithm) == 0 &&
         std::all_of(digest.begin() + kAlgorithm.size(), digest.end(),
                     [](char ch) { return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'); });
}

}  // namespace

// --wrapper-digest is checked here, so that a bad one names the flag, and then applied as the
// last --set (wrapper.digest), so that it overrides the profile and the model reads it as any
// other value.
bool WrapperDigestLayer(const std::string& digest, bool given, LayerInputs& inputs,
                        DiagnosticSink& sink) {
  if (!given) return true;
  if (digest.empty()) {
    sink.Report(Diagnostic{Severity::kError,
                           {},
                           "",
                           "cli.usage",
                           "--wrapper-digest is empty: the bundle would not be pinned (did the "
                           "command that prints the digest, e.g. skopeo inspect, fail?)",
                           "run bash scripts/build-image.sh (it prints the digest) or skopeo "
                           "inspect --format '{{.Digest}}' oci:build/image:<version> and check "
                           "that it succeeds, then --wrapper-digest sha256:<64 hex>; leave the "
                           "flag out to render by tag"});
    return false;
  }
  if (!WellFormedDigest(digest)) {
    sink.Report(Diagnostic{Severity::kError,
                           {},
                           "",
                           "cli.usage",
                           "--wrapper-digest '" + digest +
                               "' is not a manifest digest (expected sha256: followed by 64 "
                               "lower-case hex digits)",
                           "give the digest bash scripts/build-image.sh prints, or skopeo inspect "
                           "--format '{{.Digest}}' oci:build/image:<version>: "
                           "--wrapper-digest sha256:<64 hex>"});
    return false;
  }
  inputs.set_values.push_back("wrapper.digest=" + digest);
  return true;
}

// The same route for any image: a --set of images.digests.IMAGE, the image's dots and brackets
// escaped (layering/set.h), so that the model reads it as a profile's images.digests.
bool ImageDigestLayer(const std::vector<std::string>& pins, LayerInputs& inputs,
                      DiagnosticSink& sink) {
  bool ok = true;
  for (const std::string& pin : pins) {
    const size_t equals = pin.rfind('=');
    const std::string image = equals == std::string::npos ? "" : pin.substr(0, equals);
    const std::string digest = equals == std::string::npos ? pin : pin.substr(equals + 1);
    if (image.empty() || !WellFormedDigest(digest)) {
      sink.Report(
          Diagnostic{Severity::kError,
                     {},
                     "",
                     "cli.usage",
                     "--image-digest '" + pin + "' is not IMAGE=sha256:<64 hex>" +
                         (image.empty() ? " (no IMAGE= before the digest)"
                                        : " ('" + digest + "' is not a manifest digest)"),
                     "name the image as the profile does and its digest, e.g. --image-digest "
                     "quay.io/org/train:1.0=$(skopeo inspect --format '{{.Digest}}' "
                     "docker://quay.io/org/train:1.0)"});
      ok = false;
      continue;
    }
    std::string path = "images.digests.";
    for (char c : image) {
      if (c == '.' || c == '[' || c == ']' || c == '\\' || c == ',') path += '\\';
      path += c;
    }
    inputs.set_values.push_back(path + "=" + digest);
  }
  return ok;
}

void AddImageDigestOption(CLI::App* command, std::vector<std::string>& pins) {
  command
      ->add_option("--image-digest", pins,
                   "Pin an image the profile names by its manifest digest, wherever the "
                   "bundle uses it (under images.mirror too): IMAGE=sha256:<64 hex>, IMAGE "
                   "as the profile names it; repeatable; sets images.digests")
      ->type_name("IMAGE=DIGEST")
      ->allow_extra_args(false);
}

void SetupRenderCommand(CLI::App& app) {
  auto options = std::make_shared<RenderOptions>();
  auto output = std::make_shared<OutputChoice>();
  CLI::App* render =
      app.add_subcommand("render", "Validate a cluster profile and render its GitOps bundle");
  render
      ->add_option("PROFILE", options->profiles,
                   "Cluster profile (YAML), e.g. profiles/x.yaml; - reads stdin. Several, a "
                   "folder or a quoted pattern render a fleet into -d DIR")
      ->required();
  render->add_option("-d,--output-dir", options->output_dir,
                     "Write one file per object into DIR (replaced only when complete) instead "
                     "of the stream on stdout");
  AddOutputOption(render, *output, kFormats);
  AddLayerOptions(render, options->extra_files, options->set_values);
  AddAllowOption(render, options->allow);
  CLI::Option* wrapper_digest = render->add_option(
      "--wrapper-digest", options->wrapper_digest,
      "Pin every init container's wrapper image by this manifest digest (sha256:<64 hex>, "
      "printed by scripts/build-image.sh): image:tag@digest; overrides the profile's "
      "wrapper.digest");
  AddImageDigestOption(render, options->image_digests);
  render->add_flag("--check", options->check,
                   "With -d: compare DIR with the render and exit 1 naming stale, missing and "
                   "extra files; writes nothing");
  AddClusterOption(render, options->cluster);
  render->add_flag("-q,--quiet", options->quiet,
                   "Leave out notes (accepted warnings, hints; errors and warnings still "
                   "print) and, with -d, what was written; never a progress line");
  AddFleetOptions(render, *options);
  render->add_flag("--tree", options->tree,
                   "Print the bundle's Applications in the order they sync, who syncs each "
                   "and what it disrupts, their sync waves and the kinds in each (count), "
                   "instead of the bundle (-o json: as result.tree); not with -d");
  render->add_flag("--verify", options->verify,
                   "Parse every rendered document again and fail unless each is one YAML "
                   "mapping (slower; for template work and tests; the bytes are the same)");
  // Output-folder safety flags (write/write.h); kept together so that CLI reworks can move them as one.
  render->add_flag("--force", options->force,
                   "With -d: adopt a DIR that hkimgen did not write (its files are kept and "
                   "reported; files with a bundle file's name are overwritten)");
  render->add_flag("--no-wait", options->no_wait,
                   "With -d: fail (exit 2) instead of waiting while another render writes "
                   "into DIR's folder");
  render->footer(kFooter);
  render->callback([options, output, wrapper_digest] {
    options->wrapper_digest_given = wrapper_digest->count() > 0;
    if (!ResolveOutputChoice(*output, kFormats, "render", "-d", "folder", std::cerr)) {
      FinishCommand(1);
    }
    if (!output->legacy_path.empty()) options->output_dir = output->legacy_path;
    options->format = output->format;
    if (!options->profiles.empty()) options->profile = options->profiles.front();
    if (options->tree && IsProfileSet(options->profiles)) {
      std::cerr << "hkimgen render: error: --tree draws one profile's bundle [cli.usage]\n  fix: "
                   "give one profile: hkimgen render PROFILE --tree\n";
      FinishCommand(1);
    }
    if (!options->cluster.empty() && IsProfileSet(options->profiles)) {
      FinishCommand(ReportUsage(
          "render", options->format, "--cluster checks one profile",
          "check a fleet's profiles with: hkimgen validate PROFILE... --cluster FILE", std::cout,
          std::cerr));
    }
    FinishCommand(IsProfileSet(options->profiles)
                      ? RunRenderFleetCommand(*options, std::cout, std::cerr)
                      : RunRenderCommand(*options, std::cout, std::cerr));
  });
}

namespace {

// Options that cannot go together, or digests that cannot be read: reported, nothing rendered.
// The digests become layers of `inputs`.
bool RefuseOptions(const RenderOptions& options, LayerInputs& inputs, DiagnosticSink& sink) {
  if (!WrapperDigestLayer(options.wrapper_digest, options.wrapper_digest_given, inputs, sink) ||
      !ImageDigestLayer(options.image_digests, inputs, sink)) {
    return true;
  }
  if (options.tree && !options.output_dir.empty()) {
    sink.Report(Diagnostic{Severity::kError, {}, "", "cli.usage",
                           "--tree prints the bundle's tree instead of writing it: not with -d",
                           "drop -d DIR (or --tree): hkimgen render PROFILE --tree"});
    return true;
  }
  if (options.check && options.output_dir.empty()) {
    sink.Report(Diagnostic{Severity::kError,
                           {},
                           "",
                           "cli.usage",
                           "--check needs -d DIR",
                           "add -d with the directory to compare"});
    return true;
  }
  if (RefuseFleetMember(options.output_dir, "render", sink)) return true;  // a fleet owns DIR
  if (!options.cluster.empty() && !options.check) {
    sink.Report(Diagnostic{Severity::kError, {}, "", "cli.usage",
                           "--cluster compares with a cluster only with --check (render writes)",
                           "add --check -d DIR, or use: hkimgen validate PROFILE --cluster FILE"});
    return true;
  }
  return false;
}

// One line that says what happened ("0 errors, 0 warnings" alone, or "wrote 41 files"
// for a render that changed nothing, left the reader to work it out).
void PrintOutcome(const RenderOptions& options, const std::optional<WriteCounts>& summary,
                  const std::optional<size_t>& checked_files, std::ostream& err) {
  if (summary) {
    if (summary->changed + summary->added + summary->removed == 0) {
      err << options.output_dir << ": up to date (" << summary->files
          << " files, none changed)\n";
    } else {
      err << "wrote " << summary->files << " files to " << options.output_dir << ": "
          << summary->changed << " changed, " << summary->added << " added, "
          << summary->removed << " removed\n";
    }
  }
  if (checked_files) {
    err << options.output_dir << ": current (" << *checked_files
        << " files as the profile renders them)\n";
  }
}

}  // namespace

int RunRenderCommand(const RenderOptions& options, std::ostream& out, std::ostream& err) {
  // Ctrl-C while rendering or writing into DIR: no staging folder left, DIR as it was, exit 130.
  if (!options.output_dir.empty() && !options.check) CatchInterrupts();
  DiagnosticSink sink;
  SourceTexts sources;
  const bool json = options.format == "json";
  nlohmann::json result;
  LayerInputs inputs{options.profile, options.extra_files, options.set_values};
  std::optional<WriteCounts> summary;
  std::optional<size_t> checked_files;  // --check found DIR current
  std::optional<LayeredProfile> layered;  // kept for the profile's accept_warnings
  std::string tree;                       // --tree: the text printed on stdout
  RenderSettings settings;
  settings.check = options.verify ? RenderCheck::kReparse : RenderCheck::kByConstruction;
  settings.jobs = WorkerCount(options.jobs, kManyTasks);
  // The schema and templates set up on a second thread while this one reads the profile.
  std::optional<RenderPreparation> preparation;
  // It also reads lint's tables and the rule table (what accepting warnings checks against).
  if (settings.jobs > 1) {
    settings.preparation = &preparation.emplace(std::vector<std::function<void()>>{
        PrepareLintTables, [] { AllRules(); }});
  }
  // -d into a new folder: each file written as soon as it is rendered (write/write_behind.h).
  std::unique_ptr<WriteBehind> behind;
  if (settings.jobs > 1 && !options.output_dir.empty() && !options.check) {
    behind = WriteBehind::ForNewFolder(options.output_dir);
  }
  if (behind) settings.file_rendered = [&behind](const RenderedFile& file) { behind->Add(file); };
  RenderProgress progress;
  settings.progress = [&progress](size_t planned, size_t rendered) {
    progress.Add(planned, rendered);
  };
  std::optional<ProgressDisplay> display;
  display.emplace(progress, err, ShowProgress(options, err));
  if (RefuseOptions(options, inputs, sink)) {
    // reported: nothing is rendered or written
  } else if (!(layered = LoadLayeredProfile(inputs, sink, &sources)) || sink.HasErrors()) {
    // reported (layering keeps every file's lines in `sources`, even on failure)
  } else if (options.tree) {
    if (std::optional<ProfileRender> rendered = RenderLoadedProfileWithPlan(
            layered->merged, sink,
            WithAdjust(settings, GitOpsPathFromDir(options.output_dir, layered->merged, sink)))) {
      const BundleGraph graph = GraphOfBundle(rendered->profile, rendered->plan);
      if (json) {
        result = {{"tree", BundleGraphToJson(graph)}};
      } else {
        tree = FormatBundleTree(graph);
      }
    }
  } else if (std::optional<RenderedBundle> bundle = RenderLoadedProfile(
                 layered->merged, sink,
                 WithAdjust(settings,
                            GitOpsPathFromDir(options.output_dir, layered->merged, sink)))) {
    std::ostringstream stream;
    WriteCounts counts;
    if (!options.cluster.empty()) CheckRenderAgainstCluster(options, *layered, sources, err, sink);
    if (json && options.output_dir.empty()) {
      result = {{"files", ObjectsJson(*bundle, sink)}};
    } else if (WriteRendered(*bundle, options, sources, json ? stream : out, err, sink, &counts,
                             behind.get()) &&
               !options.output_dir.empty()) {
      if (options.check) {
        checked_files = bundle->files.size();
      } else {
        summary = counts;
      }
    }
    LeaveToExit(std::move(*bundle));  // support/leave_to_exit.h: freed with the process
  }
  display.reset();  // erase the progress line before anything else is printed
  sink = AcceptWarnings(sink, layered ? &layered->merged : nullptr, options.allow);
  const int status = ExitCodeFor(sink);
  if (summary && status != 0) summary.reset();
  if (summary) {
    result = {{"output_dir", options.output_dir}, {"files", summary->files},
              {"added", summary->added},          {"changed", summary->changed},
              {"removed", summary->removed}};
  }
  if (json) {
    out << DumpJson(JsonReport("render", status, sink, result)) << '\n';
    return status;
  }
  PrintDiagnostics(sink, sources, err, /*notes=*/!options.quiet);
  if (status == 0) out << tree;
  if (status != 0) checked_files.reset();  // "current" only for a clean check
  if (!options.quiet) PrintOutcome(options, summary, checked_files, err);
  LeaveToExit(std::move(layered));
  LeaveToExit(std::move(sources));
  return status;
}

}  // namespace hkim

#pragma once

// Fleet stage: several profiles (files, folders of *.yaml, or glob patterns) rendered in parallel
// into one folder, one bundle folder per profile named after its cluster, plus `_fleet/`
// (fleet/plan_fleet.h). All or nothing: when any profile has an error, or two profiles claim the same
// cluster, nothing is written. Output does not depend on the number of threads: each profile is
// rendered on its own, and bundles and diagnostics are gathered in the order of the inputs.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "support/diagnostics.h"
#include "support/diagnostics_format.h"
#include "layering/layering.h"
#include "pipeline/pipeline.h"
#include "fleet/plan_fleet.h"
#include "support/source_location.h"

namespace hkim {

/// Profile arguments as given: a folder stands for its *.yaml / *.yml files (sorted, not
/// recursive), an argument with * ? or [ that is not an existing file is a glob pattern
/// (expanded, sorted) and must match something. Reports "io.read" for a folder without
/// profiles or a pattern that matches nothing. Duplicates are dropped (the first stays).
std::vector<std::string> ExpandProfileArgs(const std::vector<std::string>& args,
                                           DiagnosticSink& sink);

/// True when `args` ask for a set of profiles: more than one argument, a folder, or a pattern.
/// One profile file is the single-profile render, unchanged.
bool IsProfileSet(const std::vector<std::string>& args);

/// Where Argo CD finds the fleet folder `output_dir` in the git repository: `fleet_path` when
/// given, else `output_dir`'s path in the git work tree that holds it (RepositoryPathOf, any
/// spelling of -d), else, outside a work tree, `output_dir` itself when it is relative and does
/// not climb out with "..". Normalised, without a trailing '/'. Reports
/// "cli.usage" and returns "" when it cannot tell.
std::string FleetRepoPath(const std::string& output_dir, const std::string& fleet_path,
                          DiagnosticSink& sink);

/// `dir`'s path inside the git work tree that holds it ("deploy/oke-h100"): the nearest folder
/// above `dir` holding `.git` is the repository's top. Normalised, '/'-separated; nullopt when
/// no folder above `dir` holds `.git` (then nobody can tell where Argo CD finds it).
std::optional<std::string> RepositoryPathOf(const std::string& dir);

/// For a single render (or diff, or --check) into `dir`: the hook that makes
/// the bundle's Argo CD path (gitops.path) the folder it is written to, as a fleet render does.
/// When `dir` lies in a git work tree and the profile's gitops.path names another folder, that
/// path is replaced by `dir`'s and a "write.gitops-path" warning at the profile's gitops.path
/// names both. Outside a work tree (or without `dir`) the profile's gitops.path stands. The hook
/// reports into `sink`, which must outlive it, as must `merged`.
std::function<void(Profile&)> GitOpsPathFromDir(const std::string& dir,
                                                const LoadedProfile& merged,
                                                DiagnosticSink& sink);

/// The worker threads `jobs` asks for: itself, or one per core when 0 (or the HKIMGEN_JOBS
/// environment variable when set), never more than `tasks` and at least 1.
unsigned WorkerCount(unsigned jobs, size_t tasks);

/// What a fleet render takes from the command line.
struct FleetInputs {
  std::vector<std::string> profiles;     ///< expanded (ExpandProfileArgs)
  std::vector<std::string> extra_files;  ///< -f layers merged over every profile
  std::vector<std::string> set_values;   ///< --set assignments applied to every profile
  FleetSettings settings;                ///< fleet/plan_fleet.h: name, Argo CD namespace, repo path
  unsigned jobs = 0;                     ///< worker threads; 0: WorkerCount's default
  RenderCheck check = RenderCheck::kByConstruction;
  /// As RenderSettings::progress, called from every worker thread (must be thread-safe).
  std::function<void(size_t planned, size_t rendered)> progress;
  /// Applied to each profile's diagnostics with that profile's merged layers (nullptr when they
  /// did not load): the command's warning acceptance, --allow and the profile's
  /// accept_warnings; may be empty.
  std::function<DiagnosticSink(const DiagnosticSink&, const LoadedProfile*)> accept;
};

/// One profile of a rendered fleet.
struct FleetMember {
  std::string profile_path;
  SourceLocation cluster_name_location;  ///< where the profile (or a layer) sets cluster.name
  ProfileRender render;
  LoadedProfile merged;  ///< the merged profile: locations for the cross-profile check
};

/// Every bundle of the fleet (sorted by cluster name) and the fleet's own files.
struct RenderedFleet {
  std::vector<FleetMember> members;
  RenderedBundle fleet;  ///< `_fleet/`
};

/// One profile's claim on a bundle folder, for CheckProfileClaims.
struct ProfileClaim {
  std::string profile_path;
  std::string cluster_name;
  SourceLocation where;  ///< cluster.name in that profile
};

/// Reports "fleet.duplicate-cluster" (at the later profile's cluster.name, naming the earlier
/// file and line) for every cluster name two profiles of one set claim: their bundles would be
/// written to the same folder. What render, validate and lint check across a set.
void CheckProfileClaims(const std::vector<ProfileClaim>& claims, DiagnosticSink& sink);

/// Loads, validates and renders every profile of `inputs` on WorkerCount(inputs.jobs) threads,
/// with each bundle's Argo CD folder and projects set for the fleet (fleet/plan_fleet.h,
/// AdjustForFleet); then checks that the fleet holds together (CheckProfileClaims; one
/// repository and revision, "fleet.repo-mismatch") and plans and renders `_fleet/`. Every
/// profile's diagnostics reach `sink` in input order and its lines `sources`; returns nullopt
/// when any error was reported.
std::optional<RenderedFleet> RenderFleet(const FleetInputs& inputs, DiagnosticSink& sink,
                                         SourceTexts* sources);

}  // namespace hkim

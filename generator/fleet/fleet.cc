// Fleet stage (fleet/fleet.h): a set of profiles rendered in parallel, checked as a set, and `_fleet/`.

#include "fleet/fleet.h"

#include <glob.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

#include "fleet/cluster_sharing.h"
#include "layering/layering.h"
#include "support/parallel.h"
#include "support/untrusted_text.h"

namespace hkim {

namespace fs = std::filesystem;

namespace {

bool IsPattern(const std::string& arg) { return arg.find_first_of("*?[") != std::string::npos; }

Diagnostic FleetError(const SourceLocation& where, const std::string& rule,
                      const std::string& message, const std::string& fix) {
  return Diagnostic{Severity::kError, where, "", rule, message, fix};
}

std::vector<std::string> ProfilesInFolder(const std::string& folder) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const std::string ext = entry.path().extension().string();
    if ((ext == ".yaml" || ext == ".yml") && entry.is_regular_file(ec)) {
      found.push_back(entry.path().string());
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::vector<std::string> MatchPattern(const std::string& pattern) {
  std::vector<std::string> found;
  glob_t matches{};
  if (glob(pattern.c_str(), 0, nullptr, &matches) == 0) {
    for (size_t i = 0; i < matches.gl_pathc; ++i) found.emplace_back(matches.gl_pathv[i]);
  }
  globfree(&matches);
  std::sort(found.begin(), found.end());
  return found;
}

/// What one worker produced for one profile; gathered in input order afterwards.
struct Outcome {
  DiagnosticSink sink;
  SourceTexts sources;
  std::optional<FleetMember> member;
};

/// A fleet's Applications live in the central Argo CD's namespace (--fleet-namespace), which
/// replaces each member's gitops.argocd_namespace. Where the profile wrote another, it is said,
/// with the flag that keeps it: a warning for a member on the central Argo CD's own cluster,
/// where the written namespace names that very Argo CD (OpenShift GitOps' openshift-gitops,
/// most often); a note for a remote member, whose own Argo CD the fleet does not use.
void ReportReplacedNamespace(const FleetSettings& fleet, const Profile& profile,
                             const LoadedProfile& merged, DiagnosticSink& sink) {
  const std::string pointer = "/gitops/argocd_namespace";
  const GitOps& gitops = profile.gitops;
  const std::string& written = gitops.argocd_namespace;
  if (!merged.locations.values.count(pointer) || written == fleet.argocd_namespace) return;
  const bool own_cluster = gitops.destination_name.empty()
                               ? gitops.destination_server == kInClusterServer
                               : gitops.destination_name == "in-cluster";
  const std::string ours = QuoteUntrusted(fleet.argocd_namespace);
  sink.Report(Diagnostic{
      own_cluster ? Severity::kWarning : Severity::kNote, merged.locations.Find(pointer), pointer,
      "fleet.argocd-namespace",
      "gitops.argocd_namespace is " + QuoteUntrusted(written) + ", but the fleet's Applications " +
          "live in the central Argo CD's namespace, " + ours + " (--fleet-namespace), " +
          (own_cluster ? "on this very cluster" : "which replaces it"),
      "when the central Argo CD runs in " + QuoteUntrusted(written) +
          ", render the fleet with --fleet-namespace " + UntrustedText(written) +
          (own_cluster ? "; else remove gitops.argocd_namespace from the profile"
                       : "; this cluster's own Argo CD is not the fleet's")});
}

/// Renders one profile; its warnings accepted (inputs.accept) with the profile already loaded.
Outcome RenderMember(const std::string& path, const FleetInputs& inputs) {
  Outcome out;
  std::optional<LayeredProfile> layered = LoadLayeredProfile(
      LayerInputs{path, inputs.extra_files, inputs.set_values}, out.sink, &out.sources);
  if (layered && !out.sink.HasErrors()) {
    RenderSettings settings;
    settings.check = inputs.check;
    settings.progress = inputs.progress;
    const FleetSettings fleet = inputs.settings;
    const LoadedProfile& merged = layered->merged;
    DiagnosticSink& sink = out.sink;
    settings.adjust_profile = [fleet, &merged, &sink](Profile& profile) {
      ReportReplacedNamespace(fleet, profile, merged, sink);
      AdjustForFleet(fleet, profile);
    };
    std::optional<ProfileRender> render =
        RenderLoadedProfileWithPlan(layered->merged, out.sink, settings);
    if (render) {
      out.member = FleetMember{path, layered->merged.locations.Find("/cluster/name"),
                               std::move(*render), std::move(layered->merged)};
    }
  }
  if (inputs.accept) {
    const LoadedProfile* loaded = out.member   ? &out.member->merged
                                  : layered    ? &layered->merged
                                               : nullptr;
    out.sink = inputs.accept(out.sink, loaded);
  }
  return out;
}

/// Renders every profile on the workers; each takes the next profile not yet taken. Results go
/// to the profile's own slot, so their order never depends on the threads.
std::vector<Outcome> RenderAll(const FleetInputs& inputs) {
  std::vector<Outcome> outcomes(inputs.profiles.size());
  const unsigned workers = WorkerCount(inputs.jobs, outcomes.size());
  ParallelFor(outcomes.size(), workers,
              [&](size_t i, unsigned) { outcomes[i] = RenderMember(inputs.profiles[i], inputs); });
  return outcomes;
}

/// A fleet is one folder of one repository at one revision: the ApplicationSet has one source.
void CheckOneRepository(const std::vector<FleetMember>& members, DiagnosticSink& sink) {
  const FleetMember& first = members.front();
  const GitOps& want = first.render.profile.gitops;
  for (const FleetMember& member : members) {
    const GitOps& have = member.render.profile.gitops;
    if (have.repo_url == want.repo_url && have.revision == want.revision) continue;
    sink.Report(FleetError(
        SourceLocation{member.profile_path, 0, 0}, "fleet.repo-mismatch",
        "gitops.repo_url/revision (" + have.repo_url + " @ " + have.revision + ") differ from " +
            first.profile_path + " (" + want.repo_url + " @ " + want.revision +
            "); a fleet is one folder of one repository",
        "give every profile of the fleet the same gitops.repo_url and gitops.revision"));
  }
}

/// The members that name no Argo CD destination (gitops.destination_server or _name): they
/// land on Argo CD's own cluster (https://kubernetes.default.svc).
std::vector<const FleetMember*> UnnamedDestinations(const std::vector<FleetMember>& members) {
  std::vector<const FleetMember*> unnamed;
  for (const FleetMember& m : members) {
    const auto& values = m.merged.locations.values;
    if (!values.count("/gitops/destination_server") && !values.count("/gitops/destination_name")) {
      unnamed.push_back(&m);
    }
  }
  return unnamed;
}

/// A fleet is several clusters for one central Argo CD: several profiles that name no
/// destination are most often clusters that forgot to say where they are, so one finding names
/// them; writing the destination (even Argo CD's own) says it is meant, and silences it. A
/// warning, since node pools of one cluster rightly share one; an error when the clusters then
/// collide there (`collisions`: what the sharing check found among them), reported in place of
/// each collision: one cause, one error.
void ReportDefaultDestinations(const std::vector<const FleetMember*>& unnamed, int collisions,
                               DiagnosticSink& sink) {
  std::string names;
  for (const FleetMember* m : unnamed) {
    names += (names.empty() ? "" : ", ") + m->render.profile.cluster_name;
  }
  const FleetMember& first = *unnamed.front();
  SourceLocation where = first.merged.locations.Find("/gitops");
  if (where.file.empty()) where.file = first.profile_path;
  std::string message = std::to_string(unnamed.size()) + " clusters of the fleet (" + names +
                        ") name no Argo CD destination, so every one of them is synced to " +
                        first.render.profile.gitops.destination_server +
                        ", the central Argo CD's own cluster";
  if (collisions > 0) {
    message += ", where their bundles collide (" + std::to_string(collisions) +
               " objects or charts that two of them emit, or platforms that never share a "
               "cluster)";
  }
  sink.Report(Diagnostic{
      collisions > 0 ? Severity::kError : Severity::kWarning, where, "/gitops",
      collisions > 0 ? "fleet.no-destination" : "fleet.default-destination", message,
      "give each profile gitops.destination_name (the cluster's name in the central Argo CD, "
      "`argocd cluster add`) or gitops.destination_server (its API server URL); write "
      "destination_server: https://kubernetes.default.svc where a profile is meant for Argo "
      "CD's own cluster (node pools of one cluster may share it). If each of these clusters "
      "runs its own Argo CD, they are no fleet: render each profile alone (`hkimgen render "
      "PROFILE -d out/CLUSTER`) and sync it with its cluster's Argo CD"});
}

/// The sharing checks (fleet/cluster_sharing.h) over the fleet; collisions among the members
/// that name no destination are reported as their one cause (ReportDefaultDestinations).
void CheckSharing(const std::vector<FleetMember>& members, DiagnosticSink& sink) {
  const std::vector<const FleetMember*> unnamed = UnnamedDestinations(members);
  int collisions = 0;
  if (unnamed.size() >= 2) {
    std::vector<ClusterMember> among;
    for (const FleetMember* m : unnamed) among.push_back({&m->merged, &m->render.profile});
    DiagnosticSink found;
    CheckClusterSharing(among, ArgoCdOfSet::kOneCentral, found);
    collisions = found.ErrorCount();
    ReportDefaultDestinations(unnamed, collisions, sink);
  }
  // The rest: every member, but of those that collide for want of a destination only the first,
  // which stands for them on Argo CD's own cluster.
  std::vector<ClusterMember> rest;
  for (const FleetMember& m : members) {
    const bool unnamed_later =
        collisions > 0 && &m != unnamed.front() &&
        std::find(unnamed.begin(), unnamed.end(), &m) != unnamed.end();
    if (!unnamed_later) rest.push_back({&m.merged, &m.render.profile});
  }
  CheckClusterSharing(rest, ArgoCdOfSet::kOneCentral, sink);
}

std::string Where(const SourceLocation& at) {
  return at.file + (at.known() ? ":" + std::to_string(at.line) + ":" + std::to_string(at.column)
                               : std::string());
}

}  // namespace

std::vector<std::string> ExpandProfileArgs(const std::vector<std::string>& args,
                                           DiagnosticSink& sink) {
  std::vector<std::string> profiles;
  std::set<std::string> seen;
  for (const std::string& arg : args) {
    std::vector<std::string> found;
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      found = ProfilesInFolder(arg);
      if (found.empty()) {
        sink.Report(FleetError(SourceLocation{arg, 0, 0}, "io.read",
                               "the folder holds no profiles (*.yaml, *.yml)",
                               "name profile files, or a folder that holds some"));
      }
    } else if (IsPattern(arg) && !fs::exists(arg, ec)) {
      found = MatchPattern(arg);
      if (found.empty()) {
        sink.Report(FleetError(SourceLocation{arg, 0, 0}, "io.read",
                               "the pattern matches no file",
                               "check the pattern (quote it so that hkimgen, not the shell, "
                               "expands it), e.g. 'profiles/*.yaml'"));
      }
    } else if (arg.find('=') != std::string::npos && !fs::exists(arg, ec)) {
      // `--set x={a,b}` unquoted: the shell made it `--set x=a x=b`, and x=b reads as a file.
      sink.Report(FleetError(SourceLocation{arg, 0, 0}, "cli.usage",
                             "is not a profile file but looks like a --set assignment (the "
                             "shell expands an unquoted {a,b} into separate words)",
                             "quote the --set value, e.g. --set 'workload.command={python,"
                             "train.py}'"));
    } else {
      found.push_back(arg);  // a missing file is reported by load, with the others
    }
    for (std::string& path : found) {
      if (seen.insert(fs::path(path).lexically_normal().string()).second) {
        profiles.push_back(std::move(path));
      }
    }
  }
  return profiles;
}

bool IsProfileSet(const std::vector<std::string>& args) {
  if (args.size() != 1) return args.size() > 1;
  std::error_code ec;
  return fs::is_directory(args[0], ec) || (IsPattern(args[0]) && !fs::exists(args[0], ec));
}

std::string FleetRepoPath(const std::string& output_dir, const std::string& fleet_path,
                          DiagnosticSink& sink) {
  // In a git work tree the folder's own place there is the answer, however -d was spelt
  // (absolute, or relative from a sub-folder), as for a single `render -d`.
  std::optional<std::string> in_repo;
  if (fleet_path.empty()) {
    in_repo = RepositoryPathOf(output_dir);
    if (in_repo && !in_repo->empty() && *in_repo != "." && in_repo->rfind("..", 0) != 0) {
      return *in_repo;
    }
  }
  const std::string path = fleet_path.empty() ? output_dir : fleet_path;
  const fs::path normal = fs::path(path).lexically_normal();
  std::string text = normal.string();
  while (!text.empty() && text.back() == '/') text.pop_back();
  if (normal.is_absolute() || text.empty() || text == "." || text.rfind("..", 0) == 0) {
    // Outside any git work tree an absolute -d has no place to be found from.
    const std::string where = fleet_path.empty() && !in_repo
                                  ? "cannot tell where '" + path +
                                        "' is in the bundle repository: it is in no git work "
                                        "tree (git init there, or see the fix)"
                                  : "cannot tell where '" + path + "' is inside the git repository";
    sink.Report(Diagnostic{Severity::kError, {}, "", "cli.usage", where,
                           "run from the repository's top with a relative -d DIR, or give "
                           "--fleet-path PATH (DIR's path in the repository)"});
    return "";
  }
  return text;
}

std::optional<std::string> RepositoryPathOf(const std::string& dir) {
  if (dir.empty()) return std::nullopt;
  std::error_code ec;
  fs::path target = fs::absolute(dir, ec);
  if (ec) return std::nullopt;
  const fs::path resolved = fs::weakly_canonical(target, ec);  // links and ".." as far as it exists
  target = (ec ? target : resolved).lexically_normal();
  if (!target.has_filename()) target = target.parent_path();
  for (fs::path top = target.parent_path(); !top.empty(); top = top.parent_path()) {
    std::error_code exists_error;
    if (fs::exists(top / ".git", exists_error)) {  // a folder, or a file (worktree, submodule)
      return target.lexically_relative(top).generic_string();
    }
    if (top == top.root_path()) break;
  }
  return std::nullopt;
}

std::function<void(Profile&)> GitOpsPathFromDir(const std::string& dir,
                                                const LoadedProfile& merged,
                                                DiagnosticSink& sink) {
  const std::optional<std::string> repo_path = RepositoryPathOf(dir);
  if (!repo_path) return {};
  return [repo_path = *repo_path, dir, &merged, &sink](Profile& profile) {
    if (profile.gitops.path == repo_path) return;
    sink.Report(Diagnostic{
        Severity::kWarning, merged.locations.Find("/gitops/path"), "/gitops/path",
        "write.gitops-path",
        "gitops.path is '" + profile.gitops.path + "' but -d " + dir + " is '" + repo_path +
            "' in its git repository: the bundle's Applications point Argo CD at " + repo_path +
            " (where the files are), not at " + profile.gitops.path,
        "set gitops.path: " + repo_path + " in the profile (or --set gitops.path=" + repo_path +
            ") to say so, or render into -d " + profile.gitops.path + " from the repository's top"});
    profile.gitops.path = repo_path;
  };
}

unsigned WorkerCount(unsigned jobs, size_t tasks) {
  unsigned workers = jobs;
  if (workers == 0) {
    const char* env = std::getenv("HKIMGEN_JOBS");
    const long from_env = env ? std::strtol(env, nullptr, 10) : 0;
    workers = from_env > 0 && from_env < 1024 ? static_cast<unsigned>(from_env)
                                              : std::max(1u, std::thread::hardware_concurrency());
  }
  if (tasks < workers) workers = static_cast<unsigned>(tasks);
  return std::max(1u, workers);
}

void CheckProfileClaims(const std::vector<ProfileClaim>& claims, DiagnosticSink& sink) {
  std::map<std::string, const ProfileClaim*> owner;  // cluster name → first profile claiming it
  for (const ProfileClaim& claim : claims) {
    auto [it, fresh] = owner.emplace(claim.cluster_name, &claim);
    if (fresh) continue;
    sink.Report(FleetError(
        claim.where, "fleet.duplicate-cluster",
        "cluster '" + claim.cluster_name + "' is also claimed by " + Where(it->second->where) +
            "; both bundles would be written to the folder '" + claim.cluster_name + "'",
        "give each profile of the set its own cluster.name, or leave one of " +
            it->second->profile_path + " and " + claim.profile_path + " out"));
  }
}

std::optional<RenderedFleet> RenderFleet(const FleetInputs& inputs, DiagnosticSink& sink,
                                         SourceTexts* sources) {
  std::vector<Outcome> outcomes = RenderAll(inputs);
  RenderedFleet fleet;
  fleet.members.reserve(outcomes.size());  // moved in once (a member's move may copy)
  for (Outcome& outcome : outcomes) {
    for (const Diagnostic& d : outcome.sink.diagnostics()) sink.Report(d);
    if (sources) sources->merge(outcome.sources);  // moved: a profile's lines are not copied
    if (outcome.member) fleet.members.push_back(std::move(*outcome.member));
  }
  if (sink.HasErrors() || fleet.members.empty()) return std::nullopt;

  std::vector<ProfileClaim> claims;
  for (const FleetMember& m : fleet.members) {
    claims.push_back({m.profile_path, m.render.profile.cluster_name, m.cluster_name_location});
  }
  CheckProfileClaims(claims, sink);
  // Two profiles of one cluster name are the cause; what the sharing checks would find between
  // them follows from it: reported alone (root cause first).
  if (sink.HasErrors()) return std::nullopt;
  CheckOneRepository(fleet.members, sink);
  // Profiles of one cluster must not emit the same objects (fleet/cluster_sharing.h).
  CheckSharing(fleet.members, sink);
  if (sink.HasErrors()) return std::nullopt;

  // Sorted by cluster name through their indices: each member (a whole render) moves once.
  std::vector<size_t> order(fleet.members.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&fleet](size_t a, size_t b) {
    return fleet.members[a].render.profile.cluster_name <
           fleet.members[b].render.profile.cluster_name;
  });
  std::vector<FleetMember> sorted;
  sorted.reserve(order.size());
  for (size_t i : order) sorted.push_back(std::move(fleet.members[i]));
  fleet.members = std::move(sorted);
  std::vector<FleetMemberPlan> plans;
  for (const FleetMember& m : fleet.members) plans.push_back({&m.render.profile, &m.render.plan});
  const TemplateSet* templates = SharedEmbeddedTemplates(sink);
  if (!templates) return std::nullopt;
  const unsigned jobs = WorkerCount(inputs.jobs, plans.size());
  BundlePlan fleet_plan = PlanFleet(plans, inputs.settings, jobs);
  // On one thread: the fleet's few large objects (the ApplicationSet, the kustomization) render
  // slower on two, each thread making its own copies of the templates.
  std::optional<RenderedBundle> files =
      RenderBundle(std::move(fleet_plan), *templates, sink, inputs.check);
  if (!files) return std::nullopt;
  fleet.fleet = std::move(*files);
  return fleet;
}

}  // namespace hkim

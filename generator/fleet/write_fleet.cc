// Write stage, fleet (fleet/write_fleet.h).

#include "fleet/write_fleet.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>
#include <vector>

#include "support/input_file.h"
#include "support/interrupt.h"
#include "support/parallel.h"
#include "write/guard.h"

namespace hkim {

namespace fs = std::filesystem;

namespace {

/// Each folder of the fleet with the bundle it gets, `_fleet/` last.
std::vector<std::pair<std::string, const RenderedBundle*>> Folders(const RenderedFleet& fleet,
                                                                   const std::string& dir) {
  std::vector<std::pair<std::string, const RenderedBundle*>> folders;
  for (const FleetMember& member : fleet.members) {
    folders.emplace_back((fs::path(dir) / member.render.profile.cluster_name).string(),
                         &member.render.bundle);
  }
  folders.emplace_back((fs::path(dir) / kFleetFolder).string(), &fleet.fleet);
  return folders;
}

Diagnostic WriteError(const std::string& where, const std::string& message) {
  return Diagnostic{Severity::kError, SourceLocation{where, 0, 0}, "", "io.write", message,
                    "check free space and permissions, then render again"};
}

}  // namespace

bool WriteFleetDir(const RenderedFleet& fleet, const std::string& dir, DiagnosticSink& sink,
                   const WriteDirOptions& options, unsigned jobs, FleetWriteSummary* summary) {
  const std::optional<OutputLock> lock =
      CreateAndLockFolder(dir, dir, options.wait, options.waiting, sink);
  if (!lock) return false;
  // Stage every folder first: a refusal or a full disk stops here, before anything moved. Every
  // folder is staged even after a refusal, so that each is reported in one run.
  const auto folders = Folders(fleet, dir);
  std::vector<std::optional<StagedBundleDir>> slots(folders.size());
  std::vector<DiagnosticSink> reports(folders.size());
  WriteDirOptions each = options;  // the inputs resolved once, not once per folder
  if (each.resolved_inputs.empty()) each.resolved_inputs = ResolveInputs(options.inputs);
  ParallelFor(folders.size(), WorkerCount(jobs, folders.size()), [&](size_t i, unsigned) {
    slots[i] = StageBundleDir(*folders[i].second, folders[i].first, reports[i], each);
  });
  std::vector<StagedBundleDir> staged;
  // Ctrl-C while staging: one "interrupted; DIR unchanged" for the fleet, not one per folder.
  const bool interrupted = Interrupted();
  bool ok = !interrupted;
  if (interrupted) sink.Report(InterruptedError(dir));
  for (size_t i = 0; i < folders.size(); ++i) {
    for (const Diagnostic& d : reports[i].diagnostics()) {
      if (d.rule != "write.interrupted") sink.Report(d);
    }
    if (slots[i]) {
      staged.push_back(std::move(*slots[i]));
    } else {
      ok = false;
    }
  }
  size_t swapped = 0;
  std::string error;
  while (ok && swapped < staged.size()) {
    if (!SwapInStaged(staged[swapped], &error)) {
      sink.Report(WriteError(staged[swapped].dir, error + "; no folder of the fleet changed"));
      ok = false;
      break;
    }
    ++swapped;
  }
  std::vector<bool> keep(staged.size(), false);  // holds the only copy of an old bundle
  if (!ok) {
    while (swapped > 0) {
      StagedBundleDir& back = staged[--swapped];
      if (!SwapBackStaged(back)) {
        keep[swapped] = true;
        sink.Report(WriteError(back.dir, "cannot put the previous bundle back; it is in " +
                                             (back.exchanged ? back.staging : back.retired)
                                                 .string()));
      }
    }
  }
  for (size_t i = 0; i < staged.size(); ++i) {
    if (!keep[i]) DiscardStaged(staged[i]);
  }
  if (ok) ReportRemovedClusters(RemovedClusterFolders(fleet, dir), Severity::kWarning, sink);
  if (ok && summary) {
    *summary = FleetWriteSummary{};
    for (const StagedBundleDir& folder : staged) {
      ++(folder.current ? summary->folders_unchanged : summary->folders_changed);
      summary->files.files += folder.counts.files;
      summary->files.added += folder.counts.added;
      summary->files.changed += folder.counts.changed;
      summary->files.removed += folder.counts.removed;
    }
  }
  return ok;
}

bool CheckFleetDir(const RenderedFleet& fleet, const std::string& dir, DiagnosticSink& sink,
                   const std::string& render_command) {
  bool current = true;
  const std::string fix =
      "run `" + (render_command.empty() ? "hkimgen render PROFILES... -d " + dir : render_command) +
      "` (the whole fleet) and commit the result";
  for (const auto& [folder, bundle] : Folders(fleet, dir)) {
    current = CheckBundleDir(*bundle, folder, sink, fix) && current;
  }
  const std::vector<std::string> removed = RemovedClusterFolders(fleet, dir);
  ReportRemovedClusters(removed, Severity::kError, sink);
  return current && removed.empty();
}

bool RefuseFleetMember(const std::string& dir, const std::string& command,
                       DiagnosticSink& sink) {
  if (dir.empty()) return false;
  fs::path target = fs::path(dir).lexically_normal();
  if (!target.has_filename()) target = target.parent_path();
  fs::path fleet_dir = target.parent_path();
  if (fleet_dir.empty()) fleet_dir = ".";
  std::string reason;
  const std::optional<std::string> marker =
      ReadInputText((fleet_dir / kFleetFolder / kBundleMarkerName).string(), &reason);
  if (!marker || !ParseBundleMarker(*marker)) return false;
  const std::string fleet = fleet_dir.string();
  sink.Report(Diagnostic{
      Severity::kError, SourceLocation{dir, 0, 0}, "", "write.refused",
      "not " + std::string(command == "diff" ? "compared" : "written") + ": " + dir +
          " is in the fleet folder " + fleet + " (" + fleet + "/" + kFleetFolder +
          "/ says so), whose bundles carry the fleet's Argo CD path and projects; a single " +
          command + " would " +
          (command == "diff" ? "compare a bundle the fleet never writes"
                             : "put a bundle of another shape into the fleet"),
      "render the whole fleet: `hkimgen " + command + " PROFILES... -d " + fleet +
          "` (the fleet's profiles: files, a folder or a quoted pattern), or give -d a folder "
          "outside " + fleet});
  return true;
}

std::vector<std::string> RemovedClusterFolders(const RenderedFleet& fleet,
                                               const std::string& dir) {
  std::set<std::string> members = {kFleetFolder};
  for (const FleetMember& member : fleet.members) {
    members.insert(member.render.profile.cluster_name);
  }
  std::vector<std::string> removed;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::error_code type_error;
    if (name.empty() || name[0] == '.' || members.count(name) ||
        !it->is_directory(type_error)) {
      continue;
    }
    std::string reason;
    const std::optional<std::string> marker =
        ReadInputText((it->path() / kBundleMarkerName).string(), &reason);
    if (marker && ParseBundleMarker(*marker)) removed.push_back(it->path().string());
  }
  std::sort(removed.begin(), removed.end());
  return removed;
}

void ReportRemovedClusters(const std::vector<std::string>& folders, Severity severity,
                           DiagnosticSink& sink) {
  for (const std::string& folder : folders) {
    const std::string name = fs::path(folder).filename().string();
    sink.Report(Diagnostic{
        severity, SourceLocation{folder, 0, 0}, "", "fleet.removed-cluster",
        "bundle of cluster '" + name + "', which no profile of the fleet renders any more: " +
            kFleetFolder + "/applicationset.yaml no longer lists it, so when Argo CD syncs " +
            kFleetFolder + "/ the ApplicationSet deletes the Application '" + name +
            "' without cascade (preserveResourcesOnDeletion). The Applications of " + name +
            "/apps stay and keep syncing this folder to the cluster while it is in git; "
            "nothing on the cluster is deleted, and objects marked Prune=false,Delete=false "
            "(MachineConfigs, SCCs, operator policies) stay even if those Applications are "
            "deleted with cascade. hkimgen leaves the folder in place",
        "once the cluster is gone, delete the Applications of " + folder +
            "/apps (argocd app delete --cascade=false) and then the folder yourself; to keep "
            "the cluster in the fleet, put its profile back in the set"});
  }
}

}  // namespace hkim

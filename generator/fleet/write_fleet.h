#pragma once

// Write stage of a fleet: every bundle folder and `_fleet/` through the single-bundle guarded
// write (write/write.h: marker per folder, refusal of folders hkimgen did not write, the parent's
// lock), and all or nothing across the fleet: every folder is staged before any is swapped in,
// and a swap that fails puts back the ones already swapped.

#include <string>
#include <vector>

#include "support/diagnostics.h"
#include "fleet/fleet.h"
#include "write/write.h"

namespace hkim {

/// Writes the fleet into `dir`: "<dir>/<cluster>" per member and "<dir>/_fleet". Holds the
/// OutputLock of `dir` (the parent of every folder it writes) throughout. When any folder is
/// refused or cannot be staged, or a swap fails, no folder of the fleet changes (reported;
/// returns false). Folders of `dir` that are not the fleet's are left alone; bundles of clusters
/// no longer in the fleet are reported after a successful write (ReportRemovedClusters,
/// warnings), never deleted. `options` apply to every folder. The folders are staged on
/// WorkerCount(jobs) threads (mostly file system time); reports come in folder order.
/// On success `summary` (when given) says what changed: folders changed and unchanged, and the
/// files of all folders (WriteCounts, summed).
struct FleetWriteSummary {
  size_t folders_changed = 0;
  size_t folders_unchanged = 0;
  WriteCounts files;
};
bool WriteFleetDir(const RenderedFleet& fleet, const std::string& dir, DiagnosticSink& sink,
                   const WriteDirOptions& options = {}, unsigned jobs = 1,
                   FleetWriteSummary* summary = nullptr);

/// Compares every folder of the fleet in `dir` with the render (CheckBundleDir); writes nothing.
/// A bundle of a cluster no longer in the fleet is stale too (ReportRemovedClusters, errors):
/// the committed tree holds a bundle no profile renders, until the user deletes it or puts the
/// profile back.
/// `render_command` is the command whose output is compared ("hkimgen render 'profiles/*.yaml'
/// -d fleet"): each stale file's fix names it, never a single render into a member's folder.
bool CheckFleetDir(const RenderedFleet& fleet, const std::string& dir, DiagnosticSink& sink,
                   const std::string& render_command = "");

/// A single render, diff or --check into a folder a fleet render owns: the
/// folder beside `dir` named `_fleet` holds a bundle marker, so `dir` is (or would become) a
/// member of that fleet, whose bundles carry the fleet's Argo CD path and projects. Reports
/// "write.refused" naming the fleet folder and the fleet command, and returns true then.
/// `command` is "render" or "diff", for the message.
bool RefuseFleetMember(const std::string& dir, const std::string& command,
                       DiagnosticSink& sink);

/// The bundle folders of clusters no longer in the fleet: folders directly in `dir` (not
/// hidden, not `_fleet`, not a member's) that hold a marker hkimgen wrote (write/guard.h).
/// Sorted paths ("<dir>/<name>"); empty when `dir` does not exist or cannot be listed.
std::vector<std::string> RemovedClusterFolders(const RenderedFleet& fleet,
                                               const std::string& dir);

/// Reports "fleet.removed-cluster" for each of `folders` (RemovedClusterFolders) with
/// `severity`: the ApplicationSet no longer lists the cluster, what Argo CD then does (deletes
/// the cluster's parent Application without cascade; the layer Applications and everything on
/// the cluster stay), and the fix (delete the folder once the cluster is gone, or put the
/// profile back). hkimgen never deletes such a folder.
void ReportRemovedClusters(const std::vector<std::string>& folders, Severity severity,
                           DiagnosticSink& sink);

}  // namespace hkim

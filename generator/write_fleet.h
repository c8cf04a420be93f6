#pragma once

// Write stage of a fleet: every bundle folder and `_fleet/` through the single-bundle guarded
// write (write.h: marker per folder, refusal of folders hkimgen did not write, the parent's
// lock), and all or nothing across the fleet: every folder is staged before any is swapped in,
// and a swap that fails puts back the ones already swapped.

#include <string>

#include "diagnostics.h"
#include "fleet.h"
#include "write.h"

namespace hkim {

/// Writes the fleet into `dir`: "<dir>/<cluster>" per member and "<dir>/_fleet". Holds the
/// OutputLock of `dir` (the parent of every folder it writes) throughout. When any folder is
/// refused or cannot be staged, or a swap fails, no folder of the fleet changes (reported;
/// returns false). Folders of `dir` that are not the fleet's are left alone, including bundles
/// of clusters no longer in the fleet. `options` apply to every folder. The folders are staged
/// on WorkerCount(jobs) threads (mostly file system time); reports come in folder order.
bool WriteFleetDir(const RenderedFleet& fleet, const std::string& dir, DiagnosticSink& sink,
                   const WriteDirOptions& options = {}, unsigned jobs = 1);

/// Compares every folder of the fleet in `dir` with the render (CheckBundleDir); writes nothing.
bool CheckFleetDir(const RenderedFleet& fleet, const std::string& dir, DiagnosticSink& sink);

}  // namespace hkim

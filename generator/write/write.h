#pragma once

// Write stage: a rendered bundle to stdout, or to a directory that is replaced only once the new
// content is complete, or compared against a directory (`--check`).

#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "support/diagnostics.h"
#include "render/render.h"
#include "write/guard.h"
#include "write/write_behind.h"

namespace hkim {

/// Writes BundleStream(bundle) to `out`. Reports "io.write" when the stream fails.
bool WriteBundleStream(const RenderedBundle& bundle, std::ostream& out, DiagnosticSink& sink);

/// How WriteBundleDir may treat the output directory (docs/bundle.md, "The output folder").
struct WriteDirOptions {
  /// Adopt a folder hkimgen did not write (its files are kept; same-named ones overwritten).
  bool force = false;
  /// When another render holds the output's lock: wait (after `waiting`), else fail.
  bool wait = true;
  /// The profile and layer files: a folder holding one is never written.
  std::vector<std::string> inputs;
  /// `inputs` resolved (write/guard.h ResolveInputs), when the caller writes many folders;
  /// empty: resolved for each folder.
  std::vector<ResolvedInput> resolved_inputs;
  /// Called once before blocking on another render's lock (prints "waiting for ...").
  std::function<void()> waiting;
  /// Threads writing the files of one folder (a fleet stages its folders on its own threads).
  unsigned jobs = 1;
  /// The bundle's files, written into the staging folder while it rendered (a new folder only;
  /// write_behind.h): taken over instead of written again when complete, discarded otherwise.
  WriteBehind* behind = nullptr;
};

/// What a write changes in its folder, counted from the comparison it makes under the lock (so
/// exact even when renders race). The marker is not counted; a user's own files are not
/// "removed" (they are kept).
struct WriteCounts {
  size_t files = 0;    ///< files of the bundle
  size_t added = 0;    ///< not in the folder before
  size_t changed = 0;  ///< in the folder with other content
  size_t removed = 0;  ///< written by an earlier render, no longer rendered
};

/// Makes `dir` hold the bundle's files (FileText of each) and the marker `.hkimgen-bundle`
/// listing them. Refuses (rule "write.refused", exit 1) `/`, the current directory and its
/// parents, a folder holding an input, and, unless `force`, a directory that is neither missing,
/// empty nor a bundle. Entries a user added to a bundle are kept and reported
/// ("write.user-file" warnings). Renders into one parent directory take turns (OutputLock);
/// temporary folders of killed renders are swept first. Does nothing when `dir` is current;
/// otherwise builds the new content in a temporary sibling (unchanged files are hard-linked from
/// the old one, so they keep their timestamps) and swaps it in with one atomic rename exchange
/// (two renames where the filesystem lacks it). Any failure leaves `dir` as it was and reports
/// "io.write"; returns false then. On success, `counts` (when given) says what changed.
bool WriteBundleDir(const RenderedBundle& bundle, const std::string& dir, DiagnosticSink& sink,
                    const WriteDirOptions& options = {}, WriteCounts* counts = nullptr);

/// A bundle built in a temporary sibling of its folder and not yet in place: WriteBundleDir's
/// steps, split so that a fleet (fleet/write_fleet.h) can stage every folder before swapping any in.
struct StagedBundleDir {
  std::string dir;                  ///< as the user named it, for messages
  std::filesystem::path target;     ///< normalised
  std::filesystem::path staging;    ///< the new content; after the swap, the old one
  std::filesystem::path retired;    ///< where the old content goes without an atomic exchange
  bool exists = false;              ///< target existed
  bool current = false;             ///< target already holds the bundle: nothing to swap
  bool exchanged = false;           ///< swapped with one atomic exchange (else two renames)
  bool moved_in = false;            ///< a new folder: staging renamed into place, nothing beside
  WriteCounts counts;               ///< what the swap changes
};

/// Everything WriteBundleDir does before the swap (refusals, user files, the staging folder),
/// for a caller that already holds the OutputLock of `dir`'s parent. Returns nullopt after
/// reporting; nothing in `dir` changed then.
std::optional<StagedBundleDir> StageBundleDir(const RenderedBundle& bundle, const std::string& dir,
                                              DiagnosticSink& sink, const WriteDirOptions& options);

/// Puts a staged bundle in place (one atomic exchange where the kernel has it). Returns false
/// with `error` set when it could not; the folder is as it was then.
bool SwapInStaged(StagedBundleDir& staged, std::string* error);

/// Undoes a successful SwapInStaged: the old content back in place, the new one in staging.
bool SwapBackStaged(StagedBundleDir& staged);

/// Removes what a staged bundle left beside its folder (the staging or retired folder).
void DiscardStaged(const StagedBundleDir& staged);

/// "interrupted; DIR unchanged" (rule "write.interrupted", exit 130): what a write reports when
/// SIGINT or SIGTERM arrived before its swap (support/interrupt.h); the staging folder is gone.
Diagnostic InterruptedError(const std::string& dir);

/// Compares `dir` (files and marker) with the bundle without writing anything: reports every
/// stale ("write.stale"), missing ("write.missing") and extra ("write.extra": hkimgen wrote it,
/// the profile no longer renders it) file as an error, and a user's own file as a
/// "write.user-file" warning. Returns true when `dir` is current.
/// `fix` replaces the default fix ("run `hkimgen render PROFILE -d DIR` ...") of the errors.
bool CheckBundleDir(const RenderedBundle& bundle, const std::string& dir, DiagnosticSink& sink,
                    const std::string& fix = "");

}  // namespace hkim

#pragma once

// Write stage: a rendered bundle to stdout, or to a directory that is replaced only once the new
// content is complete, or compared against a directory (`--check`).

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "diagnostics.h"
#include "render.h"

namespace hkim {

/// Writes BundleStream(bundle) to `out`. Reports "io.write" when the stream fails.
bool WriteBundleStream(const RenderedBundle& bundle, std::ostream& out, DiagnosticSink& sink);

/// How WriteBundleDir may treat the output directory (README "Output folder").
struct WriteDirOptions {
  /// Adopt a folder hkimgen did not write (its files are kept; same-named ones overwritten).
  bool force = false;
  /// When another render holds the output's lock: wait (after `waiting`), else fail.
  bool wait = true;
  /// The profile and layer files: a folder holding one is never written.
  std::vector<std::string> inputs;
  /// Called once before blocking on another render's lock (prints "waiting for ...").
  std::function<void()> waiting;
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
/// "io.write"; returns false then.
bool WriteBundleDir(const RenderedBundle& bundle, const std::string& dir, DiagnosticSink& sink,
                    const WriteDirOptions& options = {});

/// Compares `dir` (files and marker) with the bundle without writing anything: reports every
/// stale ("write.stale"), missing ("write.missing") and extra ("write.extra": hkimgen wrote it,
/// the profile no longer renders it) file as an error, and a user's own file as a
/// "write.user-file" warning. Returns true when `dir` is current.
bool CheckBundleDir(const RenderedBundle& bundle, const std::string& dir, DiagnosticSink& sink);

}  // namespace hkim

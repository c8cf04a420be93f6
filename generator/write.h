#pragma once

// Write stage: a rendered bundle to stdout, or to a directory that is replaced only once the new
// content is complete, or compared against a directory (`--check`).

#include <ostream>
#include <string>

#include "diagnostics.h"
#include "render.h"

namespace hkim {

/// Writes BundleStream(bundle) to `out`. Reports "io.write" when the stream fails.
bool WriteBundleStream(const RenderedBundle& bundle, std::ostream& out, DiagnosticSink& sink);

/// Makes `dir` hold exactly the bundle's files (FileText of each). Does nothing when it already
/// does; otherwise builds the new content in a temporary sibling (unchanged files are hard-linked
/// from the old one, so they keep their timestamps) and swaps it in with one atomic rename
/// exchange (two renames where the filesystem lacks it). Any failure leaves `dir` as it was and
/// reports "io.write"; returns false then.
bool WriteBundleDir(const RenderedBundle& bundle, const std::string& dir, DiagnosticSink& sink);

/// Compares `dir` with the bundle without writing anything: reports every stale ("write.stale"),
/// missing ("write.missing") and extra ("write.extra") file as an error. Returns true when `dir`
/// is current.
bool CheckBundleDir(const RenderedBundle& bundle, const std::string& dir, DiagnosticSink& sink);

}  // namespace hkim

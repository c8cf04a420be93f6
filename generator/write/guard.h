#pragma once

// What makes `render -o DIR` safe (used by write/write.cc): the marker that says a directory is a
// bundle hkimgen wrote, the folders it never replaces, the lock that serialises two renders into
// one DIR, and the sweep of temporary folders that killed renders left behind.

#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/model.h"
#include "support/diagnostics.h"

namespace hkim {

/// The marker file every bundle directory holds. No .yaml/.yml/.json extension, so neither
/// `kubectl apply -f DIR`, Argo CD's directory mode nor kustomize (which reads only what
/// kustomization.yaml lists) takes it for a manifest; hidden, so `hkimgen diff` skips it.
inline constexpr char kBundleMarkerName[] = ".hkimgen-bundle";

/// The marker's text for a bundle of `files` (names in the directory): generator, hkimgen's
/// version and the sorted names, as JSON. No time or host path, so bundles stay byte-identical.
/// `preconditions` (when any) are listed as "preconditions": [{kind, what, why, check}], for
/// tools that check a cluster before the first sync.
std::string BundleMarkerText(const std::set<std::string>& files,
                             const std::vector<Precondition>& preconditions = {});

/// The names a marker lists; nullopt when `text` is not a marker hkimgen wrote.
std::optional<std::set<std::string>> ParseBundleMarker(const std::string& text);

/// Why `target` must never be written, whatever the flags ("" when it may be): `/`, the current
/// directory or one of its parents, or a folder holding one of `inputs` (profile, layers).
std::string ForbiddenOutput(const std::filesystem::path& target,
                            const std::vector<std::string>& inputs);

/// An input as given and as ForbiddenOutput compares it (symbolic links and ".." resolved).
struct ResolvedInput {
  std::string given;
  std::filesystem::path resolved;
};
std::vector<ResolvedInput> ResolveInputs(const std::vector<std::string>& inputs);

/// The same with the inputs resolved once by a caller that checks many folders (a fleet: each
/// folder against every profile was quadratic in the fleet's size).
std::string ForbiddenOutput(const std::filesystem::path& target,
                            const std::vector<ResolvedInput>& inputs);

/// Who owns what in an existing output directory.
struct OutputOwnership {
  std::string refusal;             ///< non-empty: the directory may not be replaced; says why
  std::set<std::string> ours;      ///< entries an earlier render wrote (the marker lists them)
  std::set<std::string> theirs;    ///< entries hkimgen did not write: kept, and reported
  bool exists = false;
  bool marked = false;             ///< holds a valid marker (not in `ours` nor `theirs`)
};

/// Inspects `target`: missing, empty or holding a marker is hkimgen's; anything else is refused
/// unless `force`, which adopts the folder (its entries count as the user's and are kept).
/// `wanted` are the names the new bundle writes: a user's entry of the same name is refused
/// unless `force` (which overwrites it).
OutputOwnership InspectOutput(const std::filesystem::path& target,
                              const std::set<std::string>& wanted, bool force);

/// An exclusive flock(2) on the output's parent directory, held until destroyed: renders into
/// one parent take turns, and nothing is left on disk to clean up.
class OutputLock {
 public:
  /// Takes the lock. When another render holds it: calls `waiting` and blocks when `wait`,
  /// else returns nullopt. Also nullopt (with `error` set) when the directory cannot be opened.
  static std::optional<OutputLock> Acquire(const std::filesystem::path& parent, bool wait,
                                           const std::function<void()>& waiting,
                                           std::string* error);
  OutputLock(OutputLock&& other) noexcept;
  OutputLock& operator=(OutputLock&&) = delete;
  ~OutputLock();

 private:
  explicit OutputLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

/// Creates `folder` (with its parents) and takes its OutputLock, as every write into it does
/// first. Reports "io.write" (cannot create) or "io.locked" (held by another render and `wait`
/// off, or cannot be locked) against `dir`, the name the user gave, and returns nullopt then.
std::optional<OutputLock> CreateAndLockFolder(const std::filesystem::path& folder,
                                              const std::string& dir, bool wait,
                                              const std::function<void()>& waiting,
                                              DiagnosticSink& sink);

/// The folder `-d DIR` names: DIR normalised ("out/x/" is out/x); empty when that is no folder
/// of its own ("", ".", "..", "/"), which a bundle never replaces as a whole.
std::filesystem::path NamedFolder(const std::string& dir);

/// The temporary sibling of `target` that process `pid` builds in ("-new-") or retires the old
/// bundle to ("-old-"): ".<name>.hkimgen-new-<pid>".
std::filesystem::path TemporarySibling(const std::filesystem::path& target, const char* kind,
                                       long pid);

/// Removes the temporary siblings of `target` whose process is gone (killed renders); returns
/// their paths. Call with the OutputLock held.
std::vector<std::string> SweepTemporarySiblings(const std::filesystem::path& target);

}  // namespace hkim

// Write stage, fleet (write_fleet.h).

#include "write_fleet.h"

#include <filesystem>
#include <optional>
#include <vector>

#include "write_guard.h"

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
                   const WriteDirOptions& options) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    sink.Report(WriteError(dir, "cannot create the fleet folder: " + ec.message()));
    return false;
  }
  std::string lock_error;
  std::optional<OutputLock> lock = OutputLock::Acquire(dir, options.wait, options.waiting,
                                                       &lock_error);
  if (!lock) {
    sink.Report(Diagnostic{Severity::kError, SourceLocation{dir, 0, 0}, "", "io.locked",
                           lock_error + "; nothing was written",
                           "wait for the other render to finish, or leave out --no-wait to "
                           "wait for it"});
    return false;
  }
  // Stage every folder first: a refusal or a full disk stops here, before anything moved.
  std::vector<StagedBundleDir> staged;
  bool ok = true;
  for (const auto& [folder, bundle] : Folders(fleet, dir)) {
    std::optional<StagedBundleDir> one = StageBundleDir(*bundle, folder, sink, options);
    if (!one) {
      ok = false;  // keep staging the others, so that every refusal is reported in one run
      continue;
    }
    staged.push_back(std::move(*one));
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
  return ok;
}

bool CheckFleetDir(const RenderedFleet& fleet, const std::string& dir, DiagnosticSink& sink) {
  bool current = true;
  for (const auto& [folder, bundle] : Folders(fleet, dir)) {
    current = CheckBundleDir(*bundle, folder, sink) && current;
  }
  return current;
}

}  // namespace hkim

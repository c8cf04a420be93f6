// Write stage, fleet (write_fleet.h).

#include "write_fleet.h"

#include <atomic>
#include <filesystem>
#include <optional>
#include <thread>
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
                   const WriteDirOptions& options, unsigned jobs) {
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
  // Stage every folder first: a refusal or a full disk stops here, before anything moved. Every
  // folder is staged even after a refusal, so that each is reported in one run.
  const auto folders = Folders(fleet, dir);
  std::vector<std::optional<StagedBundleDir>> slots(folders.size());
  std::vector<DiagnosticSink> reports(folders.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < folders.size(); i = next++) {
      slots[i] = StageBundleDir(*folders[i].second, folders[i].first, reports[i], options);
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < WorkerCount(jobs, folders.size()); ++t) threads.emplace_back(work);
  work();
  for (std::thread& thread : threads) thread.join();
  std::vector<StagedBundleDir> staged;
  bool ok = true;
  for (size_t i = 0; i < folders.size(); ++i) {
    for (const Diagnostic& d : reports[i].diagnostics()) sink.Report(d);
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

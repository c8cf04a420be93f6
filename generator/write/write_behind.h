#pragma once

// Write stage, started early: a new bundle folder's files written while the rest of the bundle
// renders. Rendering one file and creating the previous one overlap (two cores), instead of the
// files being created only after the last one rendered (Barcelona into a new folder: creating its
// 41 files was a sixth of the render). The files go into the staging folder WriteBundleDir would
// create (guard.h's TemporarySibling, this process's own), which the write stage then takes over
// (WriteDirOptions::behind); nothing appears at DIR itself before the usual checks and swap.
// Only a folder that does not exist yet is written this way: an existing one is compared first
// (unchanged files keep their timestamps), which needs the whole bundle.

#include <condition_variable>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "render/render.h"
#include "support/thread_beside.h"

namespace hkim {

class WriteBehind {
 public:
  /// For `dir` when it does not exist and its parent folder does; nullptr otherwise (the write
  /// stage then writes every file itself, as without this).
  static std::unique_ptr<WriteBehind> ForNewFolder(const std::string& dir);

  /// Writes into `staging` (created with the first file; it must not exist).
  explicit WriteBehind(std::filesystem::path staging);
  /// Stops, and removes the staging folder unless Take() handed it over.
  ~WriteBehind();
  WriteBehind(const WriteBehind&) = delete;
  WriteBehind& operator=(const WriteBehind&) = delete;

  /// Queues `file` (its FileText, copied) for writing; from any thread.
  void Add(const RenderedFile& file);

  /// Waits for the files queued so far. True when each was written into `staging` (the folder
  /// this was made for) and they are exactly `names`: the caller owns the folder from then on.
  /// False otherwise, after removing the folder (the caller writes the bundle itself).
  bool Take(const std::filesystem::path& staging, const std::set<std::string>& names);
  /// Stops writing and removes the staging folder (the write stage writes the bundle itself).
  void Discard();

 private:
  void Run();
  bool WriteOne(const std::string& name, const std::string& text);
  void RemoveStaging();

  std::filesystem::path staging_;
  std::mutex mutex_;
  std::condition_variable wake_;  // a file was queued, or stop_
  std::condition_variable idle_;  // the queue ran empty
  std::deque<std::pair<std::string, std::string>> queue_;  // name, text
  std::set<std::string> written_;
  std::set<std::filesystem::path> folders_;  // made so far (the thread's own)
  bool busy_ = false;     // the thread is writing a file it took from the queue
  bool created_ = false;  // the staging folder exists (made by the thread)
  bool failed_ = false;   // a file could not be written: Take refuses
  bool stop_ = false;
  bool taken_ = false;
  // Started with the first file (the set-up thread, pipeline/prepare.h, has the other core
  // until then; a third thread started at once held up the profile read by a millisecond).
  std::unique_ptr<ThreadBeside> thread_;
};

}  // namespace hkim

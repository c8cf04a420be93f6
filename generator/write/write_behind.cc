#include "write/write_behind.h"

#include <sys/stat.h>
#include <unistd.h>

#include <system_error>

#include "support/interrupt.h"
#include "write/guard.h"
#include "write/output_file.h"

namespace fs = std::filesystem;

namespace hkim {

std::unique_ptr<WriteBehind> WriteBehind::ForNewFolder(const std::string& dir) {
  const fs::path target = NamedFolder(dir);
  if (target.empty()) return nullptr;
  struct stat info {};
  if (lstat(target.c_str(), &info) == 0 || errno != ENOENT) return nullptr;  // it exists
  const fs::path parent = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  if (stat(parent.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) return nullptr;
  return std::make_unique<WriteBehind>(TemporarySibling(target, "new", getpid()));
}

WriteBehind::WriteBehind(fs::path staging) : staging_(std::move(staging)) {}

WriteBehind::~WriteBehind() { Discard(); }

void WriteBehind::Add(const RenderedFile& file) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stop_ || failed_) return;
    queue_.emplace_back(file.file_name, FileText(file));
    if (!thread_) thread_ = std::make_unique<ThreadBeside>([this] { Run(); });
  }
  wake_.notify_one();
}

bool WriteBehind::Take(const fs::path& staging, const std::set<std::string>& names) {
  bool complete = false;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait(lock, [this] { return queue_.empty() && !busy_; });
    stop_ = true;
    complete = !failed_ && created_ && staging == staging_ && written_ == names;
    taken_ = complete;
  }
  wake_.notify_one();
  if (thread_) thread_->Join();
  if (!complete) RemoveStaging();
  return complete;
}

void WriteBehind::Discard() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    failed_ = true;
  }
  wake_.notify_one();
  if (thread_) thread_->Join();
  if (!taken_) RemoveStaging();
}

void WriteBehind::Run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    wake_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopped
    auto [name, text] = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    const bool skip = failed_;
    lock.unlock();
    const bool written = skip || (!Interrupted() && WriteOne(name, text));
    lock.lock();
    busy_ = false;
    if (!written) failed_ = true;
    if (written && !skip) written_.insert(std::move(name));
    if (queue_.empty()) idle_.notify_all();
  }
}

bool WriteBehind::WriteOne(const std::string& name, const std::string& text) {
  std::error_code error;
  if (!created_) {
    // A folder of this process's name: one left by a render that died with this pid would
    // be swept (guard.h) only once that pid is gone, so it is never adopted here.
    if (!fs::create_directory(staging_, error) || error) return false;
    created_ = true;
  }
  const fs::path path = staging_ / name;
  const fs::path folder = path.parent_path();
  if (folder != staging_ && folders_.insert(folder).second) {
    fs::create_directories(folder, error);
    if (error) return false;
  }
  std::string reason;
  return WriteOutputFile(path.string(), text, false, &reason) == OutputFileStatus::kWritten;
}

void WriteBehind::RemoveStaging() {
  if (!created_) return;
  std::error_code ignored;
  fs::remove_all(staging_, ignored);
  created_ = false;
}

}  // namespace hkim

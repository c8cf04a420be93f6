#include "write/write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <stdio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string_view>

#include "support/interrupt.h"
#include "plan/layers.h"
#include "support/parallel.h"
#include "write/guard.h"

namespace hkim {

namespace fs = std::filesystem;

namespace {

Diagnostic IoError(const std::string& file, const std::string& message, const std::string& fix) {
  return Diagnostic{Severity::kError, SourceLocation{file, 0, 0}, "", "io.write", message, fix};
}

}  // namespace

Diagnostic InterruptedError(const std::string& dir) {
  return Diagnostic{Severity::kError, SourceLocation{dir, 0, 0}, "", "write.interrupted",
                    "interrupted; " + dir + " unchanged",
                    "nothing was written; render again when you are ready"};
}

namespace {

Diagnostic Refused(const std::string& dir, const std::string& why, const std::string& fix) {
  return Diagnostic{Severity::kError, SourceLocation{dir, 0, 0}, "", "write.refused",
                    "not written: " + dir + " " + why, fix};
}

/// A file as it is written: `head` then `body`. For a bundle file these are FileHeader and a
/// view of the rendered content, so the bundle's text is not copied (peak memory); the marker
/// is all head.
struct WantedText {
  std::string head;
  std::string_view body;
  bool Equals(const std::string& text) const {
    return text.size() == head.size() + body.size() && text.compare(0, head.size(), head) == 0 &&
           std::string_view(text).substr(head.size()) == body;
  }
};

/// The bundle's files by name, with the marker that lists them (std::map: compared and reported
/// in sorted order). Views into `bundle`, which must outlive the map.
std::map<std::string, WantedText> Wanted(const RenderedBundle& bundle) {
  std::map<std::string, WantedText> files;
  std::set<std::string> names;
  for (const RenderedFile& file : bundle.files) {
    files.emplace(file.file_name, WantedText{FileHeader(file), file.content});
    names.insert(file.file_name);
  }
  files.emplace(kBundleMarkerName, WantedText{BundleMarkerText(names, bundle.preconditions), {}});
  return files;
}

/// Whether `path` is a regular file holding exactly `text`; read only when the sizes agree.
bool HoldsText(const fs::path& path, const WantedText& text) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat info {};
  bool same = fstat(fd, &info) == 0 && S_ISREG(info.st_mode) &&
              static_cast<size_t>(info.st_size) == text.head.size() + text.body.size();
  if (same) {
    std::string old(static_cast<size_t>(info.st_size), '\0');
    size_t done = 0;
    while (done < old.size()) {
      const ssize_t got = read(fd, old.data() + done, old.size() - done);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) break;
      done += static_cast<size_t>(got);
    }
    same = done == old.size() && text.Equals(old);
  }
  close(fd);
  return same;
}

std::set<std::string> Names(const std::map<std::string, WantedText>& files) {
  std::set<std::string> names;
  for (const auto& entry : files) names.insert(entry.first);
  return names;
}

/// What differs between `dir` and the bundle; empty when current. A missing dir lists every file.
/// `user` are a user's own entries (a marker exists and does not list them): never "extra".
struct Differences {
  std::vector<std::string> stale, missing, extra, user;
  bool empty() const { return stale.empty() && missing.empty() && extra.empty(); }
};

Differences Compare(const std::map<std::string, WantedText>& wanted, const fs::path& dir) {
  Differences diff;
  const OutputOwnership owner = InspectOutput(dir, Names(wanted), /*force=*/true);
  std::set<std::string> present = owner.ours;
  present.insert(owner.theirs.begin(), owner.theirs.end());
  const bool has_marker = owner.marked;
  for (const auto& [name, text] : wanted) {
    if (!present.count(name) && !(name == kBundleMarkerName && has_marker)) {
      diff.missing.push_back(name);
      continue;
    }
    if (!HoldsText(dir / name, text)) diff.stale.push_back(name);
  }
  for (const std::string& name : present) {
    if (wanted.count(name)) continue;
    // A file the marker does not list (or any file of a folder without one, adopted with
    // --force) is the user's: kept, never "extra" nor counted as removed.
    (owner.theirs.count(name) ? diff.user : diff.extra).push_back(name);
  }
  return diff;
}

/// Writes `head` then `body` with as few writev calls as the kernel allows (one, for a bundle's
/// small files): one system call per file instead of two is 13,000 fewer in a 1,000-namespace
/// render.
bool WriteAll(int fd, std::string_view head, std::string_view body) {
  while (!head.empty() || !body.empty()) {
    iovec parts[2] = {{const_cast<char*>(head.data()), head.size()},
                      {const_cast<char*>(body.data()), body.size()}};
    const ssize_t done = writev(fd, parts, 2);
    if (done < 0 && errno == EINTR) continue;
    if (done <= 0) return false;
    const size_t from_head = std::min(head.size(), static_cast<size_t>(done));
    head.remove_prefix(from_head);
    body.remove_prefix(static_cast<size_t>(done) - from_head);
  }
  return true;
}

/// One open, one write and a close: a bundle's files are small, and an ofstream's set-up
/// (locale, buffer) cost about as much as writing one. O_NOFOLLOW: a symlink at the file's
/// place (one copied from the old bundle, or planted) is an error, never written through.
bool WriteFile(const fs::path& path, const WantedText& text) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666);
  if (fd < 0) return false;
  const bool written = WriteAll(fd, text.head, text.body);
  return close(fd) == 0 && written;
}

/// Swaps two paths atomically where the kernel can (renameat2 RENAME_EXCHANGE).
bool ExchangePaths(const fs::path& a, const fs::path& b) {
#ifdef RENAME_EXCHANGE
  return renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE) == 0;
#else
  (void)a;
  (void)b;
  errno = ENOSYS;
  return false;
#endif
}

}  // namespace

bool WriteBundleStream(const RenderedBundle& bundle, std::ostream& out, DiagnosticSink& sink) {
  WriteStream(bundle, out);
  out.flush();
  if (!out) {
    sink.Report(IoError("<stdout>", "cannot write the bundle to standard output",
                        "check the pipe or file standard output goes to"));
    return false;
  }
  return true;
}

namespace {

/// What happens to a user's file in a bundle: apps/ has no kustomization.yaml (the parent
/// Application syncs it as a plain directory, which reads the folder's own *.yaml, *.yml and
/// *.json files), so a manifest there is applied; everywhere else kustomize builds only what a
/// kustomization.yaml lists, and the bundle's root is synced by nothing.
std::string UserFileEffect(const std::string& name) {
  const fs::path path(name);
  const std::string ext = path.extension().string();
  const bool manifest = ext == ".yaml" || ext == ".yml" || ext == ".json";
  if (path.parent_path() == kAppsLayer && manifest && name.rfind("apps/.", 0) != 0) {
    return "not written by hkimgen: kept as it is, and APPLIED: apps/ has no kustomization.yaml, "
           "so the parent Application syncs every *.yaml, *.yml and *.json file of apps/ to the "
           "cluster, this one included";
  }
  return "not written by hkimgen: kept as it is; not applied (kustomize reads only what a "
         "kustomization.yaml lists, and Argo CD's directory sync of apps/ reads only its own "
         "*.yaml, *.yml and *.json files)";
}

}  // namespace

void ReportUserFiles(const std::vector<std::string>& names, const fs::path& dir,
                     DiagnosticSink& sink) {
  for (const std::string& name : names) {
    const bool applied = UserFileEffect(name).find("APPLIED") != std::string::npos;
    sink.Report(Diagnostic{Severity::kWarning, SourceLocation{(dir / name).string(), 0, 0}, "",
                           "write.user-file", UserFileEffect(name),
                           applied ? "move it out of apps/ unless Argo CD is meant to apply it; "
                                     "hkimgen keeps it either way"
                                   : "nothing to do if you keep it on purpose; remove it "
                                     "yourself if not"});
  }
}

/// A user's file under a name the bundle writes, overwritten because of --force: named, so
/// that adopting a folder never loses a file without a word.
void ReportOverwritten(const std::vector<std::string>& names, const fs::path& dir,
                       DiagnosticSink& sink) {
  for (const std::string& name : names) {
    sink.Report(Diagnostic{Severity::kWarning, SourceLocation{(dir / name).string(), 0, 0}, "",
                           "write.overwritten",
                           "not written by hkimgen, but the bundle writes a file of this name: "
                           "overwritten (--force)",
                           "if you needed its old content, get it back from git or a backup; "
                           "leave out --force to be refused instead"});
  }
}

bool CheckBundleDir(const RenderedBundle& bundle, const std::string& dir, DiagnosticSink& sink,
                    const std::string& fix_text) {
  const fs::path root(dir);
  Differences diff = Compare(Wanted(bundle), root);
  const std::string fix = fix_text.empty()
                              ? "run `hkimgen render PROFILE -d " + dir + "` and commit the result"
                              : fix_text;
  auto report = [&](const std::vector<std::string>& names, const char* rule, const char* what) {
    for (const std::string& name : names) {
      sink.Report(Diagnostic{Severity::kError, SourceLocation{(root / name).string(), 0, 0}, "",
                             rule, what, fix});
    }
  };
  report(diff.stale, "write.stale", "out of date: differs from what the profile renders to");
  report(diff.missing, "write.missing", "missing: the profile renders this file");
  report(diff.extra, "write.extra", "extra: the profile does not render this file");
  ReportUserFiles(diff.user, root, sink);
  return diff.empty();
}

namespace {

/// Puts a user's entry (file, link or whole folder) into the new bundle unchanged: hard links
/// where the filesystem has them, else a copy.
bool KeepUserEntry(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::create_directories(to.parent_path(), ec);
  fs::copy(from, to,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks |
               fs::copy_options::create_hard_links,
           ec);
  if (!ec) return true;
  fs::remove_all(to, ec);
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::copy_symlinks, ec);
  return !ec;
}

/// Puts one file of the bundle into `staging`: written when named in `write`, else equal to
/// `target`'s (Compare read it) and hard-linked, so that it keeps its timestamp.
bool PutFile(const std::string& name, const WantedText& text, bool write, const fs::path& target,
             const fs::path& staging) {
  if (!write) {
    const fs::path old_file = target / name;
    std::error_code link_error;
    fs::create_hard_link(old_file, staging / name, link_error);
    if (!link_error) return true;
    // Filesystems without hard links: copy, keeping the timestamp.
    fs::copy_file(old_file, staging / name, link_error);
    if (!link_error) {
      fs::last_write_time(staging / name, fs::last_write_time(old_file, link_error), link_error);
      return true;
    }
  }
  return WriteFile(staging / name, text);
}

/// Creating a file is mostly the kernel's work, which a second thread (started beside this one,
/// support/thread_beside.h) overlaps from a few files on: Barcelona's 41 files were written
/// 0.15 ms sooner on two threads than on one (medians of 40 interleaved renders into new folders).
constexpr size_t kMinFilesPerThread = 16;

/// Fills the empty folder `staging` with `wanted` (PutFile) on `jobs` threads: the folders
/// first, then the files, spread over the threads (a large bundle is mostly file system time).
bool FillStaging(const std::map<std::string, WantedText>& wanted,
                 const std::set<std::string_view>& write, const fs::path& target,
                 const fs::path& staging, unsigned jobs, std::string* failed) {
  std::set<fs::path> folders;
  std::vector<const std::pair<const std::string, WantedText>*> files;
  for (const auto& entry : wanted) {
    folders.insert((staging / entry.first).parent_path());
    files.push_back(&entry);
  }
  for (const fs::path& folder : folders) {
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec) {
      *failed = "cannot create " + folder.string() + ": " + ec.message();
      return false;
    }
  }
  std::vector<char> written(files.size(), 0);
  ParallelFor(files.size(), ThreadsForSmallTasks(files.size(), jobs, kMinFilesPerThread),
              [&](size_t i, unsigned) {
    if (Interrupted()) return;  // Ctrl-C: stop at the next file (the caller removes staging)
    const auto& [name, text] = *files[i];
    written[i] = PutFile(name, text, write.count(name) > 0, target, staging);
  });
  if (Interrupted()) return false;
  for (size_t i = 0; i < files.size(); ++i) {  // the first failure, whatever the threads did
    if (!written[i]) {
      *failed = "cannot write " + files[i]->first;
      return false;
    }
  }
  return true;
}

/// Takes over the staging folder `behind` filled while the bundle rendered, when it holds every
/// file of `wanted` but the marker, which is written here; false (the folder gone) otherwise.
bool TakeBehind(WriteBehind& behind, const std::map<std::string, WantedText>& wanted,
                const fs::path& staging) {
  std::set<std::string> names;
  for (const auto& [name, text] : wanted) {
    if (name != kBundleMarkerName) names.insert(name);
  }
  if (!behind.Take(staging, names)) return false;
  if (WriteFile(staging / kBundleMarkerName, wanted.at(kBundleMarkerName))) return true;
  std::error_code ignored;
  fs::remove_all(staging, ignored);
  return false;
}

WriteCounts Count(const Differences& diff, size_t files) {
  auto without_marker = [](const std::vector<std::string>& names) {
    return static_cast<size_t>(
        std::count_if(names.begin(), names.end(),
                      [](const std::string& name) { return name != kBundleMarkerName; }));
  };
  return WriteCounts{files, without_marker(diff.missing), without_marker(diff.stale),
                     diff.extra.size()};
}

}  // namespace

namespace {

/// The folder `dir` names, or empty after reporting that it cannot be replaced as a whole.
fs::path TargetOf(const std::string& dir, const WriteDirOptions& options, DiagnosticSink& sink) {
  const fs::path target = NamedFolder(dir);
  if (target.empty()) {
    // ".", "..", "out/..", "/": a folder named by where it is, never one of its own. Say which
    // folder that is and why, as for any folder render must never replace.
    std::error_code ec;
    const fs::path absolute = fs::absolute(dir, ec).lexically_normal();
    std::string why = ec                               ? ""
                      : options.resolved_inputs.empty() ? ForbiddenOutput(absolute, options.inputs)
                                                        : ForbiddenOutput(absolute, options.resolved_inputs);
    if (why.empty()) why = "names a folder by its place (" + absolute.string() + "), not its own";
    sink.Report(Refused(dir, why + ", which hkimgen never replaces",
                        "write the bundle to a folder of its own, e.g. -d out/<cluster>"));
    return {};
  }
  const std::string why = options.resolved_inputs.empty() && !options.inputs.empty()
                              ? ForbiddenOutput(target, options.inputs)
                              : ForbiddenOutput(target, options.resolved_inputs);
  if (!why.empty()) {
    sink.Report(Refused(dir, why + ", which hkimgen never replaces",
                        "write the bundle to a folder of its own, e.g. -d out/<cluster>"));
    return {};
  }
  return target;
}

}  // namespace

std::optional<StagedBundleDir> StageBundleDir(const RenderedBundle& bundle, const std::string& dir,
                                              DiagnosticSink& sink,
                                              const WriteDirOptions& options) {
  StagedBundleDir staged;
  staged.dir = dir;
  staged.target = TargetOf(dir, options, sink);
  if (staged.target.empty()) return std::nullopt;
  const fs::path& target = staged.target;
  SweepTemporarySiblings(target);
  const std::map<std::string, WantedText> wanted = Wanted(bundle);
  const OutputOwnership owner = InspectOutput(target, Names(wanted), options.force);
  if (options.behind && owner.exists) options.behind->Discard();  // made for a new folder
  if (!owner.refusal.empty()) {
    sink.Report(Refused(dir, owner.refusal,
                        "choose another -d, move those files away, or pass --force to adopt the "
                        "folder (its files are kept; same-named ones are overwritten)"));
    return std::nullopt;
  }
  std::vector<std::string> kept, overwritten;
  for (const std::string& name : owner.theirs) {
    if (!wanted.count(name)) {
      kept.push_back(name);
    } else if (!HoldsText(target / name, wanted.at(name))) {
      overwritten.push_back(name);  // only with --force: InspectOutput refuses it otherwise
    }
  }
  ReportUserFiles(kept, target, sink);
  ReportOverwritten(overwritten, target, sink);
  staged.exists = owner.exists;
  // Read once: what differs decides what is written, what is linked, and the counts.
  const Differences diff = Compare(wanted, target);
  staged.counts = Count(diff, bundle.files.size());
  if (staged.exists && diff.empty()) {  // current: touch nothing
    staged.current = true;
    return staged;
  }
  // Views of diff's names (a new folder of a large bundle: every name, peak memory).
  std::set<std::string_view> write(diff.stale.begin(), diff.stale.end());
  write.insert(diff.missing.begin(), diff.missing.end());
  staged.staging = TemporarySibling(target, "new", getpid());
  staged.retired = TemporarySibling(target, "old", getpid());
  auto fail = [&](const std::string& message) -> std::optional<StagedBundleDir> {
    std::error_code ignored;
    fs::remove_all(staged.staging, ignored);
    sink.Report(Interrupted() ? InterruptedError(dir)
                              : IoError(dir, message + "; the directory was left as it was",
                                        "check free space and permissions, then render again"));
    return std::nullopt;
  };
  if (Interrupted()) return fail("interrupted");
  if (options.behind && !staged.exists && TakeBehind(*options.behind, wanted, staged.staging)) {
    if (Interrupted()) return fail("interrupted");
    return staged;  // every file written while the bundle rendered, and the marker now
  }
  std::error_code ec;
  fs::remove_all(staged.staging, ec);
  if (!fs::create_directory(staged.staging, ec)) {
    return fail("cannot create " + staged.staging.string());
  }
  std::string failed;
  if (!FillStaging(wanted, write, target, staged.staging, options.jobs, &failed)) {
    return fail(failed);
  }
  for (const std::string& name : kept) {
    if (!KeepUserEntry(target / name, staged.staging / name)) return fail("cannot keep " + name);
  }
  if (Interrupted()) return fail("interrupted");
  return staged;
}

bool SwapInStaged(StagedBundleDir& staged, std::string* error) {
  if (staged.current) return true;
  const fs::path& target = staged.target;
  if (!staged.exists) {
    staged.moved_in = rename(staged.staging.c_str(), target.c_str()) == 0;
    if (staged.moved_in) return true;
    *error = std::string("cannot move the new bundle into place: ") + std::strerror(errno);
    return false;
  }
  if (ExchangePaths(staged.staging, target)) {
    staged.exchanged = true;  // staging now holds the old content
    return true;
  }
  // No atomic exchange here: retire the old directory, move the new one in, and put the old one
  // back if that fails.
  if (rename(target.c_str(), staged.retired.c_str()) != 0) {
    *error = std::string("cannot replace the directory: ") + std::strerror(errno);
    return false;
  }
  if (rename(staged.staging.c_str(), target.c_str()) != 0) {
    *error = std::string("cannot move the new bundle into place: ") + std::strerror(errno);
    rename(staged.retired.c_str(), target.c_str());
    return false;
  }
  return true;
}

bool SwapBackStaged(StagedBundleDir& staged) {
  if (staged.current) return true;
  const fs::path& target = staged.target;
  if (!staged.exists) {
    staged.moved_in = rename(target.c_str(), staged.staging.c_str()) != 0;
    return !staged.moved_in;
  }
  if (staged.exchanged) {
    staged.exchanged = !ExchangePaths(staged.staging, target);
    return !staged.exchanged;
  }
  return rename(target.c_str(), staged.staging.c_str()) == 0 &&
         rename(staged.retired.c_str(), target.c_str()) == 0;
}

void DiscardStaged(const StagedBundleDir& staged) {
  if (staged.current || staged.moved_in) return;  // nothing of it is left beside the folder
  std::error_code ec;
  fs::remove_all(staged.staging, ec);
  fs::remove_all(staged.retired, ec);
}

bool WriteBundleDir(const RenderedBundle& bundle, const std::string& dir, DiagnosticSink& sink,
                    const WriteDirOptions& options, WriteCounts* counts) {
  const fs::path target = TargetOf(dir, options, sink);
  if (target.empty()) return false;
  fs::path parent = target.parent_path();
  if (parent.empty()) parent = ".";
  const std::optional<OutputLock> lock =
      CreateAndLockFolder(parent, dir, options.wait, options.waiting, sink);
  if (!lock) return false;
  std::optional<StagedBundleDir> staged = StageBundleDir(bundle, dir, sink, options);
  if (!staged) return false;
  std::string error;
  if (Interrupted()) {  // after staging, before the swap: the last moment DIR can stay as it was
    DiscardStaged(*staged);
    sink.Report(InterruptedError(dir));
    return false;
  }
  if (!SwapInStaged(*staged, &error)) {
    DiscardStaged(*staged);
    sink.Report(IoError(dir, error + "; the directory was left as it was",
                        "check free space and permissions, then render again"));
    return false;
  }
  DiscardStaged(*staged);  // the old content
  if (counts) *counts = staged->counts;
  return true;
}

}  // namespace hkim

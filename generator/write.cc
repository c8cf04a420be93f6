#include "write.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace hkim {

namespace fs = std::filesystem;

namespace {

Diagnostic IoError(const std::string& file, const std::string& message, const std::string& fix) {
  return Diagnostic{Severity::kError, SourceLocation{file, 0, 0}, "", "io.write", message, fix};
}

std::optional<std::string> ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return text.str();
}

/// The bundle's files by name (std::map: compared and reported in sorted order).
std::map<std::string, std::string> Wanted(const RenderedBundle& bundle) {
  std::map<std::string, std::string> files;
  for (const RenderedFile& file : bundle.files) files.emplace(file.file_name, FileText(file));
  return files;
}

/// What differs between `dir` and the bundle; empty when current. A missing dir lists every file.
struct Differences {
  std::vector<std::string> stale, missing, extra;
  bool empty() const { return stale.empty() && missing.empty() && extra.empty(); }
};

Differences Compare(const std::map<std::string, std::string>& wanted, const fs::path& dir) {
  Differences diff;
  std::error_code ec;
  std::set<std::string> present;
  if (fs::is_directory(dir, ec)) {
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      present.insert(entry.path().filename().string());
    }
  }
  for (const auto& [name, text] : wanted) {
    if (!present.count(name)) {
      diff.missing.push_back(name);
      continue;
    }
    std::optional<std::string> old = ReadFile(dir / name);
    if (!old || *old != text) diff.stale.push_back(name);
  }
  for (const std::string& name : present) {
    if (!wanted.count(name)) diff.extra.push_back(name);
  }
  return diff;
}

bool WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.flush();
  return static_cast<bool>(out);
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
  out << BundleStream(bundle);
  out.flush();
  if (!out) {
    sink.Report(IoError("<stdout>", "cannot write the bundle to standard output",
                        "check the pipe or file standard output goes to"));
    return false;
  }
  return true;
}

bool CheckBundleDir(const RenderedBundle& bundle, const std::string& dir, DiagnosticSink& sink) {
  const fs::path root(dir);
  Differences diff = Compare(Wanted(bundle), root);
  const std::string fix = "run `hkimgen render PROFILE -d " + dir + "` and commit the result";
  auto report = [&](const std::vector<std::string>& names, const char* rule, const char* what) {
    for (const std::string& name : names) {
      sink.Report(Diagnostic{Severity::kError, SourceLocation{(root / name).string(), 0, 0}, "",
                             rule, what, fix});
    }
  };
  report(diff.stale, "write.stale", "out of date: differs from what the profile renders to");
  report(diff.missing, "write.missing", "missing: the profile renders this file");
  report(diff.extra, "write.extra", "extra: the profile does not render this file");
  return diff.empty();
}

bool WriteBundleDir(const RenderedBundle& bundle, const std::string& dir, DiagnosticSink& sink) {
  fs::path target = fs::path(dir).lexically_normal();
  if (!target.has_filename()) target = target.parent_path();  // "out/x/" names out/x
  const std::map<std::string, std::string> wanted = Wanted(bundle);
  std::error_code ec;
  if (target.empty() || target.filename() == "." || target.filename() == ".." ||
      target == target.root_path()) {
    sink.Report(IoError(dir, "cannot be replaced as a whole",
                        "name a directory of its own, e.g. -d out/<cluster>"));
    return false;
  }
  const bool exists = fs::exists(target, ec);
  if (exists && !fs::is_directory(target, ec)) {
    sink.Report(IoError(dir, "exists and is not a directory", "remove it or choose another -o"));
    return false;
  }
  if (exists && Compare(wanted, target).empty()) return true;  // current: touch nothing

  fs::path parent = target.parent_path();
  if (parent.empty()) parent = ".";
  fs::create_directories(parent, ec);
  if (ec) {
    sink.Report(IoError(parent.string(), "cannot create the directory: " + ec.message(),
                        "check the path and its permissions"));
    return false;
  }
  const std::string base = target.filename().string();
  const fs::path staging = parent / ("." + base + ".hkimgen-new-" + std::to_string(getpid()));
  const fs::path retired = parent / ("." + base + ".hkimgen-old-" + std::to_string(getpid()));
  fs::remove_all(staging, ec);
  auto fail = [&](const std::string& message) {
    std::error_code ignored;
    fs::remove_all(staging, ignored);
    sink.Report(IoError(dir, message + "; the directory was left as it was",
                        "check free space and permissions, then render again"));
    return false;
  };
  if (!fs::create_directory(staging, ec)) return fail("cannot create " + staging.string());
  for (const auto& [name, text] : wanted) {
    const fs::path old_file = target / name;
    if (exists) {
      std::optional<std::string> old = ReadFile(old_file);
      if (old && *old == text) {
        std::error_code link_error;
        fs::create_hard_link(old_file, staging / name, link_error);
        if (!link_error) continue;
        // Filesystems without hard links: copy, keeping the timestamp.
        fs::copy_file(old_file, staging / name, link_error);
        if (!link_error) {
          fs::last_write_time(staging / name, fs::last_write_time(old_file, link_error),
                              link_error);
          continue;
        }
      }
    }
    if (!WriteFile(staging / name, text)) return fail("cannot write " + name);
  }
  if (!exists) {
    if (rename(staging.c_str(), target.c_str()) != 0) {
      return fail(std::string("cannot move the new bundle into place: ") + std::strerror(errno));
    }
    return true;
  }
  if (ExchangePaths(staging, target)) {
    fs::remove_all(staging, ec);  // now holds the old content
    return true;
  }
  // No atomic exchange here: retire the old directory, move the new one in, and put the old one
  // back if that fails.
  if (rename(target.c_str(), retired.c_str()) != 0) {
    return fail(std::string("cannot replace the directory: ") + std::strerror(errno));
  }
  if (rename(staging.c_str(), target.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    rename(retired.c_str(), target.c_str());
    return fail("cannot move the new bundle into place: " + why);
  }
  fs::remove_all(retired, ec);
  return true;
}

}  // namespace hkim

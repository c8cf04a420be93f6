// libFuzzer target: the wrapper's sysfs reading and detection (SysfsProbe, Detect: the
// production code, reading real files) over a fixture /sys tree mutated by the input. The tree
// of a healthy pod (Barcelona's 4 VFs, tests/wrapper/sysfs_fixture.h) is built once per process,
// on tmpfs when /dev/shm is writable; each input applies the mutations it encodes, Detect runs,
// and every path the input touched is put back from a snapshot of the tree, so the next input
// starts from the same healthy pod. Mutations: file contents replaced (any bytes, up to 64 KiB),
// files turned into symlink loops, dangling links or directories, or removed. Detect must never
// crash or hang.
//
// Input: repeated records [op][path index, 2 bytes][length/257][content...]; op % 5 picks the
// mutation (0-1 write, 2 self-loop, 3 dangling link, 4 remove), the index picks one of the
// tree's entries (sorted paths).
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "detect.h"
#include "environment_scan.h"
#include "sysfs_fixture.h"
#include "sysfs_probe.h"

namespace fs = std::filesystem;
using hkim::wrapper::testing::SysfsFixture;

namespace {

// One entry of the healthy tree, root-relative.
struct Entry {
  enum Kind { kDirectory, kFile, kSymlink } kind;
  std::string path;
  std::string content;  ///< file bytes, or the link's target
};

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class Tree {
 public:
  Tree() {
    const char* shm = "/dev/shm";
    const fs::path base = ::access(shm, W_OK) == 0 ? fs::path(shm) : fs::temp_directory_path();
    root_ = (base / ("hkim-sysfs-fuzz-" + std::to_string(::getpid()))).string();
    std::error_code ec;
    fs::remove_all(root_, ec);
    fixture_ = new SysfsFixture(root_, /*keep=*/false);
    hkim::wrapper::testing::BuildPod(fixture_, hkim::wrapper::testing::BarcelonaDevices());
    for (const auto& item : fs::recursive_directory_iterator(root_)) {
      const fs::path& full = item.path();
      Entry entry{Entry::kFile, fs::relative(full, root_).string(), ""};
      if (item.is_symlink()) {
        entry.kind = Entry::kSymlink;
        entry.content = fs::read_symlink(full).string();
      } else if (item.is_directory()) {
        entry.kind = Entry::kDirectory;
      } else {
        entry.content = ReadAll(full);
      }
      entries_.push_back(std::move(entry));
    }
    std::sort(entries_.begin(), entries_.end(),
              [](const Entry& a, const Entry& b) { return a.path < b.path; });
    // The process's exit removes the tree (libFuzzer ends with exit(), which runs atexit).
    std::atexit([] { delete Get().fixture_; });
  }

  static Tree& Get() {
    static Tree* tree = new Tree;
    return *tree;
  }

  const std::string& root() const { return root_; }
  const std::vector<Entry>& entries() const { return entries_; }
  SysfsFixture& fixture() { return *fixture_; }

  /// Puts `path` and everything the healthy tree held under it back as it was.
  void Restore(const std::string& path) {
    std::error_code ec;
    fs::remove_all(fs::path(root_) / path, ec);
    const std::string prefix = path + "/";
    auto it = std::lower_bound(entries_.begin(), entries_.end(), path,
                               [](const Entry& e, const std::string& p) { return e.path < p; });
    for (; it != entries_.end() && (it->path == path || it->path.rfind(prefix, 0) == 0); ++it) {
      const fs::path full = fs::path(root_) / it->path;
      if (it->kind == Entry::kDirectory) {
        fs::create_directory(full, ec);
      } else if (it->kind == Entry::kSymlink) {
        fs::create_symlink(it->content, full, ec);
      } else {
        std::ofstream(full, std::ios::binary) << it->content;
      }
    }
  }

 private:
  std::string root_;
  SysfsFixture* fixture_ = nullptr;
  std::vector<Entry> entries_;
};

void Mutate(uint8_t op, SysfsFixture& fixture, const std::string& path, const fs::path& full,
            const std::string& content, uint8_t salt) {
  std::error_code ec;
  switch (op) {
    case 0:
    case 1:
      fixture.WriteFile(path, content);
      break;
    case 2:
      fs::create_symlink(full.filename(), full, ec);  // a link to itself: ELOOP
      break;
    case 3:
      fs::create_symlink("../no/such/" + std::to_string(salt), full, ec);
      break;
    default:
      fs::remove_all(full, ec);
      break;
  }
}

// True when every folder above `path` is still the healthy tree's real folder (an earlier
// mutation of this input may have replaced one by a link: writing through it could leave the tree).
bool ParentsIntact(const fs::path& root, const std::string& path) {
  std::error_code ec;
  for (fs::path parent = fs::path(path).parent_path(); !parent.empty();
       parent = parent.parent_path()) {
    if (!fs::is_directory(fs::symlink_status(root / parent, ec))) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto devices = hkim::wrapper::testing::BarcelonaDevices();
  static const std::vector<std::string> environment =
      hkim::wrapper::testing::PluginEnvironment(devices, /*with_info=*/true, /*with_rdma_dev=*/true);
  Tree& tree = Tree::Get();
  const fs::path root(tree.root());
  const std::vector<Entry>& entries = tree.entries();
  std::set<std::string> touched;
  size_t i = 0;
  while (i + 3 <= size) {
    const uint8_t op = data[i] % 5;
    const std::string& path = entries[(data[i + 1] | (data[i + 2] << 8)) % entries.size()].path;
    i += 3;
    size_t length = 0;
    if (i < size) {
      const size_t wanted = data[i] * 257u;
      ++i;
      length = std::min<size_t>(wanted, size - i);
    }
    const std::string content(reinterpret_cast<const char*>(data + i), length);
    i += length;
    std::error_code ec;
    const fs::path full = root / path;
    if (fs::is_directory(fs::symlink_status(full, ec)) && op != 4) continue;  // keep the shape
    if (!ParentsIntact(root, path)) continue;
    touched.insert(path);
    fs::remove(full, ec);
    try {  // the fixture's own set-up may meet a loop the input made: that is not a finding
      Mutate(op, tree.fixture(), path, full, content, data[i - 1]);
    } catch (const fs::filesystem_error&) {
    }
  }
  hkim::wrapper::SysfsProbe probe(tree.root());
  (void)hkim::wrapper::Detect(hkim::wrapper::ScanEnvironment(environment), probe);
  for (const std::string& path : touched) tree.Restore(path);
  return 0;
}

// libFuzzer target: the wrapper's sysfs reading and detection over generated fixture trees. Each
// input starts from a healthy pod (Barcelona's 4 VFs, tests/wrapper/sysfs_fixture.h) and applies
// mutations the input encodes: file contents replaced (any bytes, up to 64 KiB), files turned
// into symlink loops, dangling links or directories, or removed. Detect must never crash or hang.
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "detect.h"
#include "environment_scan.h"
#include "sysfs_fixture.h"
#include "sysfs_probe.h"

namespace fs = std::filesystem;
using hkim::wrapper::testing::SysfsFixture;

namespace {

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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto devices = hkim::wrapper::testing::BarcelonaDevices();
  const std::string root =
      (fs::temp_directory_path() / ("hkim-sysfs-fuzz-" + std::to_string(getpid()))).string();
  SysfsFixture fixture(root, /*keep=*/false);
  hkim::wrapper::testing::BuildPod(&fixture, devices);
  std::vector<std::string> paths;  // every entry, root-relative, sorted: stable for the fuzzer
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    paths.push_back(fs::relative(entry.path(), root).string());
  }
  std::sort(paths.begin(), paths.end());
  size_t i = 0;
  while (i + 3 <= size && !paths.empty()) {
    const uint8_t op = data[i] % 5;
    const std::string path = paths[(data[i + 1] | (data[i + 2] << 8)) % paths.size()];
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
    const fs::path full = fs::path(root) / path;
    if (fs::is_directory(fs::symlink_status(full, ec)) && op != 4) continue;  // keep the shape
    fs::remove(full, ec);
    try {  // the fixture's own set-up may meet a loop the input made: that is not a finding
      Mutate(op, fixture, path, full, content, data[i - 1]);
    } catch (const fs::filesystem_error&) {
    }
  }
  std::vector<std::string> environment =
      hkim::wrapper::testing::PluginEnvironment(devices, /*with_info=*/true, /*with_rdma_dev=*/true);
  hkim::wrapper::SysfsProbe probe(root);
  (void)hkim::wrapper::Detect(hkim::wrapper::ScanEnvironment(environment), probe);
  return 0;
}

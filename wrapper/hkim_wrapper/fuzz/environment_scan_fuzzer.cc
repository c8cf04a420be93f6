// libFuzzer target: arbitrary bytes as an environment (entries split at '\n') and, whole, as
// the value of a PCIDEVICE_*_INFO variable. ScanEnvironment must never crash, hang or leak.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "environment_scan.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> entries;
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    entries.push_back(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  hkim::wrapper::ScanEnvironment(entries);
  hkim::wrapper::ScanEnvironment({"PCIDEVICE_OPENSHIFT_IO_ENO5NP0RDMA=0000:1a:00.2",
                                  "PCIDEVICE_OPENSHIFT_IO_ENO5NP0RDMA_INFO=" + text});
  hkim::wrapper::ScanEnvironment({"PCIDEVICE_NVIDIA_COM_RDMA-VF=" + text});
  return 0;
}

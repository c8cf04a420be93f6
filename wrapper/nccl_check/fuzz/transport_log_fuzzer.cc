// libFuzzer target: arbitrary bytes as an NCCL debug log (NCCL_DEBUG=INFO output) for
// hkim-nccl-check's transport classification. Must never crash, hang or throw.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "nccl_check/transport_log.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view log(reinterpret_cast<const char*>(data), size);
  (void)hkim::nccl_check::ParseNcclLog(log);
  (void)hkim::nccl_check::ClassifyVia(log);
  return 0;
}

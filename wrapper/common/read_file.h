#pragma once

// A whole file read into memory: the service account's token and CA (hkim-health), NCCL's log
// and a child's run record (hkim-nccl-check). sysfs attributes go through sysfs_read.h instead,
// which is bounded and never blocks.

#include <optional>
#include <string>

namespace hkim::wrapper {

/// The file's bytes as they are; nullopt when it cannot be opened.
std::optional<std::string> ReadWholeFile(const std::string& path);

}  // namespace hkim::wrapper

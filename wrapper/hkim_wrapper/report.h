#pragma once

#include <string>

#include "decide.h"
#include "memlock.h"

namespace hkim::wrapper {

/// The human banner (stderr in normal runs, stdout for `--check`): what was found, what was set,
/// what was kept, every finding with its fix. Deterministic for the same inputs.
std::string FormatBanner(const Decision& decision, const MemlockResult* memlock);

/// The decision record as one line of JSON (keys sorted), ending in "\n".
std::string FormatJsonRecord(const Decision& decision, const MemlockResult* memlock);

/// `--print-env`: the variables the wrapper sets, as sorted NAME=VALUE lines.
std::string FormatPrintEnv(const Decision& decision);

/// `--check`: the banner plus a last line saying whether RDMA is fully usable.
std::string FormatCheck(const Decision& decision, const MemlockResult* memlock);

}  // namespace hkim::wrapper

#pragma once
// Turns what each check produced (a child's output and exit status, an inventory result) into
// one CheckOutcome of the summary. Pure: no I/O, so tests feed recorded outputs.

#include <string>

#include "child_run.h"
#include "node_inventory.h"
#include "summary.h"

namespace hkim::health {

/// hkim-nccl-check's exit status when this pod could not take part (kExitRendezvous in
/// wrapper/nccl_check/nccl_check.h): the rendezvous failed before any traffic.
inline constexpr int kNcclExitRendezvous = 5;

}  // namespace hkim::health

namespace hkim::health {

/// From an InventoryResult ("inventory": GPUs and RDMA resources the node advertises).
CheckOutcome InventoryOutcome(const InventoryResult& inventory);

/// From `hkim-wrapper --check`: exit 0 = pass; its "error:" lines become failures and the
/// "fix:" lines under them fixes; the last "result:" line is the detail.
CheckOutcome DiagnosisOutcome(const ChildResult& child);

/// From `hkim-nccl-check ... --json -` (plain or --per-rail): exit 0 pass, 1 fail, 3 no GPU
/// (error), other = could not run (error); the JSON's failures, the busbw at the threshold
/// size, the transport summary and (per-rail) each rail's numbers.
CheckOutcome NcclOutcome(const std::string& name, const ChildResult& child);

}  // namespace hkim::health

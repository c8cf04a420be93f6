#pragma once
// The cheap first check of a node: what it advertises to the scheduler (status.capacity and
// status.allocatable of its Node object) against what its shape should have. A node that
// registers 7 of its 8 GPUs, or fewer RDMA VFs than a pod asks for, can never host the
// workload's pod, so no in-pod check would ever see it: this one reads the API instead.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hkim::health {

/// What a node of the group must advertise.
struct NodeExpectation {
  int gpus = 0;  ///< exact nvidia.com/gpu capacity (the shape's GPUs); 0 = not checked
  std::map<std::string, std::int64_t> resources;  ///< minimum allocatable per RDMA resource
};

/// The outcome for one node.
struct InventoryResult {
  std::string node;
  bool passed = true;
  std::vector<std::string> failures;  ///< each names the node and the numbers
  std::vector<std::string> fixes;     ///< what to do about them, one per distinct cause
  std::map<std::string, std::string> numbers;  ///< "nvidia.com/gpu" -> "7/8 (allocatable 7)"
};

/// Compares one Node object (as the API returns it) with `expected`. Also fails a node whose
/// Ready condition is not True. Pure: no I/O.
InventoryResult CheckNodeInventory(const nlohmann::json& node, const NodeExpectation& expected);

/// Reads a Kubernetes quantity that must be a whole count ("8", "16", "1k"); nullopt otherwise.
std::optional<std::int64_t> ParseCount(const std::string& quantity);

}  // namespace hkim::health

#include "node_inventory.h"

#include <charconv>

#include "json_fields.h"

namespace hkim::health {
namespace {

using nlohmann::json;

constexpr const char* kGpuResource = "nvidia.com/gpu";

// status.<section>.<resource> as a count; nullopt when absent or not a whole count.
std::optional<std::int64_t> Advertised(const json& node, const char* section,
                                       const std::string& resource) {
  const json& map = Field(Field(node, "status"), section);
  if (!map.is_object() || !map.contains(resource) || !map[resource].is_string()) return std::nullopt;
  return ParseCount(map[resource].get<std::string>());
}

std::string Count(std::optional<std::int64_t> value) {
  return value ? std::to_string(*value) : std::string("none");
}

std::string ReadyStatus(const json& node) {
  const json& conditions = Field(Field(node, "status"), "conditions");
  if (!conditions.is_array()) return "Unknown";
  for (const json& condition : conditions) {
    if (StringField(condition, "type") == "Ready") return StringField(condition, "status", "Unknown");
  }
  return "Unknown";
}

}  // namespace

std::optional<std::int64_t> ParseCount(const std::string& quantity) {
  std::int64_t value = 0;
  const char* begin = quantity.data();
  const char* end = begin + quantity.size();
  auto [rest, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || value < 0) return std::nullopt;
  const std::string suffix(rest, end);
  std::int64_t scale = 1;
  if (suffix == "k") scale = 1000;
  else if (suffix == "Ki") scale = 1024;
  else if (!suffix.empty()) return std::nullopt;
  if (value > INT64_MAX / scale) return std::nullopt;
  return value * scale;
}

namespace {

InventoryResult ReadInventory(const json& node, const NodeExpectation& expected) {
  InventoryResult result;
  result.node = StringField(Field(node, "metadata"), "name");
  const std::string& name = result.node;
  auto fail = [&](std::string failure, std::string fix) {
    result.passed = false;
    result.failures.push_back(std::move(failure));
    if (std::find(result.fixes.begin(), result.fixes.end(), fix) == result.fixes.end())
      result.fixes.push_back(std::move(fix));
  };

  const std::string ready = ReadyStatus(node);
  result.numbers["Ready"] = ready;
  if (ready != "True") {
    fail("node " + name + " is not Ready (Ready=" + ready + ")",
         "kubectl describe node " + name + " (kubelet, network or disk pressure)");
  }

  if (expected.gpus > 0) {
    const auto capacity = Advertised(node, "capacity", kGpuResource);
    const auto allocatable = Advertised(node, "allocatable", kGpuResource);
    result.numbers[kGpuResource] = Count(capacity) + "/" + std::to_string(expected.gpus) +
                                   " (allocatable " + Count(allocatable) + ")";
    if (capacity.value_or(0) != expected.gpus) {
      fail("node " + name + " registers " + Count(capacity) + " of " +
               std::to_string(expected.gpus) + " GPUs (" + kGpuResource + " capacity)",
           "on " + name + ": nvidia-smi and dmesg (Xid 79 = GPU fell off the bus); then the "
           "NVIDIA device plugin pod's log; a lost GPU needs a reboot or a repair ticket");
    } else if (allocatable.value_or(0) < expected.gpus) {
      fail("node " + name + " offers " + Count(allocatable) + " of " +
               std::to_string(expected.gpus) + " GPUs (" + kGpuResource +
               " allocatable): the device plugin marked GPU(s) unhealthy",
           "the NVIDIA device plugin log on " + name + " names the unhealthy GPU (Xid, ECC)");
    }
  }
  for (const auto& [resource, minimum] : expected.resources) {
    const auto capacity = Advertised(node, "capacity", resource);
    const auto allocatable = Advertised(node, "allocatable", resource);
    result.numbers[resource] = Count(allocatable) + "/" + std::to_string(minimum) +
                               " (capacity " + Count(capacity) + ")";
    if (allocatable.value_or(0) < minimum) {
      fail("node " + name + " offers " + Count(allocatable) + " " + resource + ", a pod needs " +
               std::to_string(minimum),
           "on " + name + ": are the VFs created (SriovNetworkNodeState / ip link) and is the "
           "SR-IOV device plugin running? Its log lists the devices it found");
    }
  }
  return result;
}

}  // namespace

InventoryResult CheckNodeInventory(const json& node, const NodeExpectation& expected) {
  try {
    return ReadInventory(node, expected);
  } catch (const json::exception& error) {  // an unexpected shape fails the node, never aborts
    InventoryResult result;
    result.passed = false;
    result.failures.push_back(std::string("the Node object has an unexpected shape: ") +
                              error.what());
    result.fixes.push_back("kubectl get node -o json: compare with the Kubernetes Node schema");
    return result;
  }
}

}  // namespace hkim::health

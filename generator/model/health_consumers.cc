// Model part of the fabric-health family's consumers: `fabric_health.consumers` ->
// FabricConsumers (defaults from the schema; see model/health_consumers.h).

#include "model/health_consumers.h"

namespace hkim {
namespace {

using nlohmann::json;

const json& ConsumerSection(const json& object, const char* key) {
  static const json kEmpty = json::object();
  if (!object.is_object()) return kEmpty;
  const auto it = object.find(key);
  return it == object.end() ? kEmpty : *it;
}

void ReadConsumerValue(const json& object, const char* key, bool& out) {
  const json& value = ConsumerSection(object, key);
  if (value.is_boolean()) out = value.get<bool>();
}
void ReadConsumerValue(const json& object, const char* key, int& out) {
  const json& value = ConsumerSection(object, key);
  if (value.is_number_integer()) out = value.get<int>();
}
void ReadConsumerValue(const json& object, const char* key, std::string& out) {
  const json& value = ConsumerSection(object, key);
  if (value.is_string()) out = value.get<std::string>();
}

}  // namespace

void ReadFabricConsumers(const json& section, FabricConsumers& out) {
  const json& nhc = ConsumerSection(section, "node_health_check");
  ReadConsumerValue(nhc, "enabled", out.node_health_check.enabled);
  ReadConsumerValue(nhc, "true_seconds", out.node_health_check.true_seconds);
  ReadConsumerValue(nhc, "unknown_seconds", out.node_health_check.unknown_seconds);
  ReadConsumerValue(nhc, "template_namespace", out.node_health_check.template_namespace);
  const json& nvs = ConsumerSection(section, "nvsentinel");
  ReadConsumerValue(nvs, "enabled", out.nvsentinel.enabled);
  ReadConsumerValue(nvs, "namespace", out.nvsentinel.namespace_name);
  ReadConsumerValue(nvs, "taint_key", out.nvsentinel.taint_key);
  const json& npd = ConsumerSection(section, "node_problem_detector");
  NodeProblemDetectorConsumer& n = out.node_problem_detector;
  ReadConsumerValue(npd, "enabled", n.enabled);
  ReadConsumerValue(npd, "namespace", n.namespace_name);
  ReadConsumerValue(npd, "interval_seconds", n.interval_seconds);
  ReadConsumerValue(npd, "hkim_health_path", n.hkim_health_path);
  ReadConsumerValue(npd, "sysfs", n.sysfs);
}

}  // namespace hkim

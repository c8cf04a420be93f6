// Plan stage, the in-pod fabric check: see plan/fabric_check.h. The pods start
// `hkim-wrapper -- hkim-health pod -- <command>` (docs/CONTRACTS.md, "Fabric health").

#include "plan/fabric_check.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <stdexcept>
#include <vector>

#include "plan/health.h"
#include "support/fingerprint.h"

namespace hkim::plan {
namespace {

using nlohmann::json;

constexpr const char* kBin = "/opt/hkim/bin";

std::string Number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

// RDMA devices one pod gets (each attachment is one VF / device): what per-rail must find.
int ExpectedRails(const Profile& p) {
  if (p.workload.mode != WorkloadMode::kRdma) return 0;
  int rails = 0;
  for (const Rail& rail : p.network.rails) rails += rail.attachments_per_pod;
  return rails;
}

// The check's settings, in the order the pod prints them. Of timeout_seconds the job check gets
// all but a minute, each localization round a tenth (30-300 s).
json CheckEnv(const Profile& p) {
  const FabricGate& g = p.fabric_health.gate;
  const std::vector<std::pair<std::string, std::string>> env = {
      // hkim-health runs the checks, not the wrapper's own pre-job check (health_check).
      {"HKIM_NCCL_CHECK", "off"},
      {"HKIM_HEALTH_POLICY", ToString(g.mode)},
      {"HKIM_HEALTH_PER_RAIL", g.per_rail ? "true" : "false"},
      {"HKIM_HEALTH_TIMEOUT_S", std::to_string(std::max(60, g.timeout_seconds - 60))},
      {"HKIM_HEALTH_PAIR_TIMEOUT_S", std::to_string(std::clamp(g.timeout_seconds / 10, 30, 300))},
      {"HKIM_HEALTH_ASSEMBLE_TIMEOUT_S", std::to_string(g.assemble_timeout_seconds)},
      {"HKIM_NCCL_CHECK_SCOPE", "job"},
      {"HKIM_NCCL_CHECK_MIN_BUSBW_GBPS", Number(g.min_busbw_gbps)},
      {"HKIM_NCCL_CHECK_AT_BYTES", std::to_string(g.at_bytes)},
      {"HKIM_NCCL_CHECK_MAX_BYTES", std::to_string(g.max_bytes)},
      {"HKIM_NCCL_CHECK_TRANSPORT", ResolvedTransport(p, g.transport)},
      {"HKIM_NCCL_CHECK_MIN_RAIL_FRACTION", Number(p.fabric_health.min_rail_fraction)},
      {"HKIM_NCCL_CHECK_EXPECT_RAILS", std::to_string(ExpectedRails(p))},
  };
  json out = json::array();
  for (const auto& [name, value] : env) out.push_back(json{{"name", name}, {"value", value}});
  return out;
}

// The comma-separated names of a pod's k8s.v1.cni.cncf.io/networks annotation, each once.
std::set<std::string> NetworkNames(const json& sts) {
  std::set<std::string> names;
  if (!sts.value("has_networks", false)) return names;
  const std::string text = sts.value("networks", "");
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(',', start), text.size());
    if (end > start) names.insert(text.substr(start, end - start));
    start = end + 1;
  }
  return names;
}

// The nv-ipam pools a NAD's CNI config names (its `config`, as the NAD carries it).
std::set<std::string> IpPoolNames(const PlannedObject& nad) {
  std::set<std::string> pools;
  const json config = json::parse(nad.context.value("config", "{}"), nullptr, false);
  if (!config.is_object()) return pools;
  const json plugins = config.contains("plugins") ? config["plugins"] : json::array({config});
  for (const json& plugin : plugins) {
    if (!plugin.is_object() || !plugin.contains("ipam")) continue;
    const json& ipam = plugin["ipam"];
    if (ipam.value("type", "") == "nv-ipam") pools.insert(ipam.value("poolName", ""));
  }
  return pools;
}

bool ProvidesAny(const PlannedObject& object, CapabilityKind kind,
                 const std::set<std::string>& names) {
  for (const Capability& c : object.provides) {
    if (c.kind != kind) continue;
    for (const std::string& name : names)
      if (CapabilityMatches(kind, c.name, name)) return true;
  }
  return false;
}

// The digests of one kind of dependency, in plan order (the plan is sorted), as one fingerprint.
class Part {
 public:
  void Add(const std::string& digest) { text_ += digest + "\n"; }
  bool empty() const { return text_.empty(); }
  std::string Print() const { return Fingerprint(text_); }

 private:
  std::string text_;
};

}  // namespace

json InPodCheckOff() {
  return json{{"has_readiness_probe", false},
              {"readiness_probe_command", json::array()},
              {"check_env", json::array()},
              {"has_termination_message_policy", false},
              {"termination_message_policy", ""}};
}

void PlanInPodFabricCheck(const Profile& p, json& sts) {
  if (p.fabric_health.gate.mode == GateMode::kOff) return;
  // hkim-wrapper -- hkim-health pod -- <command>: the wrapper's decisions hold for the check
  // and the command alike; hkim-health execs the command once the check passed.
  json command = json::array();
  const json& plain = sts["command"];
  command.push_back(plain.at(0));  // hkim-wrapper
  command.push_back(plain.at(1));  // --
  command.push_back(json{{"value", std::string(kBin) + "/hkim-health"}});
  command.push_back(json{{"value", "pod"}});
  command.push_back(json{{"value", "--"}});
  for (size_t i = 2; i < plain.size(); ++i) command.push_back(plain[i]);
  sts["command"] = command;
  sts["field_env"].push_back(json{{"name", "HKIM_NODE_NAME"}, {"field_path", "spec.nodeName"}});
  // Pods of one revision check together; a pod of a new revision does not wait for old ones.
  sts["field_env"].push_back(json{{"name", "HKIM_POD_REVISION"},
                                  {"field_path", "metadata.labels['controller-revision-hash']"}});
  sts["check_env"] = CheckEnv(p);
  // Ready only once the check passed and the command runs: the StatefulSet's health in Argo CD
  // is the proof, and a rolling update stops at a pod that failed it.
  sts["has_readiness_probe"] = true;
  sts["readiness_probe_command"] = json::array(
      {json{{"value", std::string(kBin) + "/hkim-health"}}, json{{"value", "ready"}}});
  // The suspects hkim-health writes to /dev/termination-log; the log's tail when the command
  // fails later without writing one.
  sts["has_termination_message_policy"] = true;
  sts["termination_message_policy"] = "FallbackToLogsOnError";
}

const std::string& PlannedDigests::Of(const PlannedObject& object) {
  const ObjectId id = object.id();
  auto it = digests_.find(id);
  if (it != digests_.end()) return it->second;
  const std::string key = id.group + "/" + id.kind + " " + id.namespace_name + "/" + id.name;
  if (object.context.is_null())
    throw std::logic_error("the fabric checksum needs " + key +
                           ", whose template context was already released");
  return digests_[id] =
             Fingerprint(object.template_name + "\n" + key + "\n" + object.context.dump());
}

std::string FabricChecksum(const BundlePlan& plan, const std::string& ns, const json& sts,
                           PlannedDigests& digests) {
  const std::set<std::string> networks = NetworkNames(sts);
  Part nads, pools, rdma_mode, devices, check;
  std::set<std::string> pool_names, resources, netns_needs;
  for (const PlannedObject& o : plan.objects) {
    if (o.kind != "NetworkAttachmentDefinition" || o.namespace_name != ns ||
        !networks.count(o.name))
      continue;
    nads.Add(digests.Of(o));
    for (const std::string& pool : IpPoolNames(o)) pool_names.insert(pool);
    const std::string resource = o.context.value("resource_name", "");
    if (!resource.empty()) resources.insert(resource);
    for (const Need& need : o.needs)
      if (need.what.kind == CapabilityKind::kRdmaNetns) netns_needs.insert(need.what.name);
  }
  for (const PlannedObject& o : plan.objects) {
    if (o.kind == "IPPool" && pool_names.count(o.name)) pools.Add(digests.Of(o));
    if (ProvidesAny(o, CapabilityKind::kRdmaNetns, netns_needs)) rdma_mode.Add(digests.Of(o));
    if (ProvidesAny(o, CapabilityKind::kResource, resources)) devices.Add(digests.Of(o));
  }
  if (sts.contains("check_env") && !sts["check_env"].empty()) check.Add(sts["check_env"].dump());
  const std::pair<const char*, const Part*> named[] = {{"nad", &nads},
                                                       {"ip-pool", &pools},
                                                       {"rdma-mode", &rdma_mode},
                                                       {"devices", &devices},
                                                       {"check", &check}};
  std::string out;
  for (const auto& [name, part] : named) {
    if (part->empty()) continue;
    out += (out.empty() ? "" : " ") + std::string(name) + ":" + part->Print();
  }
  return out.empty() ? "none" : out;
}

}  // namespace hkim::plan

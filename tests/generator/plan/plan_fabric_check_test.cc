// The in-pod fabric check (plan/fabric_check.h): every shipped profile rendered through the whole
// pipeline and read back as YAML. The workload's own pods run the check before the command and
// are Ready only after it; nothing else in the bundle asks for the GPUs or VFs the job holds; the
// pod template's fabric checksum changes exactly when something the check depends on changes.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <map>
#include <set>

#include "layering/layering.h"
#include "pipeline/pipeline.h"
#include "plan/fabric_check.h"
#include "plan/rendered_docs.h"

namespace hkim {
namespace {

using plan_test::OfKind;

const char* const kShipped[] = {"barcelona-h100-cx7", "oke-h100", "oke-a100", "oke-a100-gpu4"};

std::vector<YAML::Node> Render(const std::string& profile, std::vector<std::string> set = {},
                               std::string* errors = nullptr) {
  return plan_test::RenderShipped(profile, std::move(set), errors);
}

YAML::Node Container(const std::vector<YAML::Node>& docs) {
  return OfKind(docs, "StatefulSet").at(0)["spec"]["template"]["spec"]["containers"][0];
}

std::vector<std::string> Command(const YAML::Node& container) {
  return container["command"].as<std::vector<std::string>>();
}

// The container's env: plain values, and "field:<path>" for downward-API ones.
std::map<std::string, std::string> Env(const YAML::Node& container) {
  std::map<std::string, std::string> env;
  for (const YAML::Node& e : container["env"])
    env[e["name"].as<std::string>()] =
        e["value"] ? e["value"].as<std::string>()
                   : "field:" + e["valueFrom"]["fieldRef"]["fieldPath"].as<std::string>();
  return env;
}

std::string Annotation(const std::vector<YAML::Node>& docs, const std::string& key) {
  const YAML::Node value =
      OfKind(docs, "StatefulSet").at(0)["spec"]["template"]["metadata"]["annotations"][key];
  return value ? value.as<std::string>() : "(none)";
}

std::string FabricChecksum(const std::vector<YAML::Node>& docs) {
  return Annotation(docs, plan::kFabricChecksumAnnotation);
}

// "nad:1a2b3c4d ip-pool:..." by part.
std::map<std::string, std::string> Parts(const std::string& checksum) {
  std::map<std::string, std::string> parts;
  size_t start = 0;
  while (start < checksum.size()) {
    size_t end = checksum.find(' ', start);
    if (end == std::string::npos) end = checksum.size();
    const std::string word = checksum.substr(start, end - start);
    const size_t colon = word.find(':');
    if (colon != std::string::npos) parts[word.substr(0, colon)] = word.substr(colon + 1);
    start = end + 1;
  }
  return parts;
}

std::set<std::string> ChangedParts(const std::string& before, const std::string& after) {
  const auto a = Parts(before), b = Parts(after);
  std::set<std::string> names;
  for (const auto& [name, value] : a)
    if (!b.count(name) || b.at(name) != value) names.insert(name);
  for (const auto& [name, value] : b)
    if (!a.count(name)) names.insert(name);
  return names;
}

TEST(InPodCheck, ThePodsRunTheCheckThenTheCommandAndAreReadyOnlyAfterIt) {
  for (const char* profile : kShipped) {
    const auto docs = Render(profile);
    const YAML::Node c = Container(docs);
    const std::vector<std::string> command = Command(c);
    ASSERT_GE(command.size(), 6u) << profile;
    EXPECT_EQ(std::vector<std::string>(command.begin(), command.begin() + 5),
              (std::vector<std::string>{"/opt/hkim/bin/hkim-wrapper", "--",
                                        "/opt/hkim/bin/hkim-health", "pod", "--"}))
        << profile;
    const std::map<std::string, std::string> env = Env(c);
    EXPECT_EQ(env.at("HKIM_NCCL_CHECK"), "off") << profile;  // hkim-health runs the checks
    EXPECT_EQ(env.at("HKIM_HEALTH_POLICY"), "fail") << profile;
    EXPECT_EQ(env.at("HKIM_NCCL_CHECK_SCOPE"), "job") << profile;
    EXPECT_EQ(env.at("HKIM_HEALTH_ASSEMBLE_TIMEOUT_S"), "300") << profile;
    EXPECT_EQ(env.at("HKIM_HEALTH_PAIR_TIMEOUT_S"), "180") << profile;  // 1800 s / 10
    EXPECT_EQ(env.at("HKIM_HEALTH_TIMEOUT_S"), "1740") << profile;
    EXPECT_EQ(env.at("HKIM_POD_REVISION"),
              "field:metadata.labels['controller-revision-hash']") << profile;
    EXPECT_EQ(env.at("HKIM_NODE_NAME"), "field:spec.nodeName") << profile;
    EXPECT_EQ(env.at("HKIM_POD_NAME"), "field:metadata.name") << profile;
    for (const char* name :
         {"HKIM_HEALTH_PER_RAIL", "HKIM_REPLICAS", "MASTER_ADDR", "HKIM_NCCL_CHECK_MIN_BUSBW_GBPS",
          "HKIM_NCCL_CHECK_AT_BYTES", "HKIM_NCCL_CHECK_MAX_BYTES", "HKIM_NCCL_CHECK_TRANSPORT",
          "HKIM_NCCL_CHECK_MIN_RAIL_FRACTION"})
      EXPECT_EQ(env.count(name), 1u) << profile << " " << name;
    // The pods mark no node: no token of a workload namespace may patch Nodes.
    EXPECT_EQ(env.count("HKIM_HEALTH_MARK_SUSPECTS"), 0u) << profile;
    EXPECT_EQ(c["readinessProbe"]["exec"]["command"].as<std::vector<std::string>>(),
              (std::vector<std::string>{"/opt/hkim/bin/hkim-health", "ready"}))
        << profile;
    EXPECT_EQ(c["terminationMessagePolicy"].as<std::string>(), "FallbackToLogsOnError");
    // No separate gate: no Job, no Service of its own.
    EXPECT_TRUE(OfKind(docs, "Job").empty()) << profile;
    for (const YAML::Node& svc : OfKind(docs, "Service"))
      EXPECT_EQ(svc["metadata"]["name"].as<std::string>().find("fabric-gate"), std::string::npos);
  }
}

TEST(InPodCheck, ModeOffStartsThePlainWrapperAndWarnIsPassedOn) {
  const auto off = Render("oke-a100", {"fabric_health.gate.mode=off"});
  const YAML::Node c = Container(off);
  EXPECT_EQ(Command(c), (std::vector<std::string>{"/opt/hkim/bin/hkim-wrapper", "--", "sleep",
                                                  "infinity"}));
  EXPECT_FALSE(c["readinessProbe"]);
  EXPECT_FALSE(c["terminationMessagePolicy"]);
  EXPECT_EQ(Env(c).count("HKIM_HEALTH_POLICY"), 0u);
  // The IP pool still restarts the pods: the checksum stays, without the check's part.
  EXPECT_EQ(Parts(FabricChecksum(off)).count("check"), 0u);
  EXPECT_EQ(Parts(FabricChecksum(off)).count("ip-pool"), 1u);
  const auto warn = Render("oke-a100", {"fabric_health.gate.mode=warn"});
  EXPECT_EQ(Env(Container(warn)).at("HKIM_HEALTH_POLICY"), "warn");
  const auto slow = Render("oke-a100", {"fabric_health.gate.assemble_timeout_seconds=45"});
  EXPECT_EQ(Env(Container(slow)).at("HKIM_HEALTH_ASSEMBLE_TIMEOUT_S"), "45");
}

TEST(InPodCheck, AtBytesAboveMaxBytesIsAModelError) {
  std::string errors;
  const auto docs = Render("oke-a100", {"fabric_health.gate.at_bytes=4Gi"}, &errors);
  EXPECT_TRUE(docs.empty());
  EXPECT_NE(errors.find("[model.gate-size]"), std::string::npos) << errors;
  EXPECT_NE(errors.find("fix: set at_bytes to at most max_bytes"), std::string::npos) << errors;
}

// The resources the workload's pods request that a node holds for them: GPUs and each rail's
// devices (VFs), from the plan's own needs of the StatefulSet, not a list kept here.
std::set<std::string> WorkloadDeviceResources(const std::string& profile) {
  DiagnosticSink sink;
  const std::filesystem::path source = HKIM_SOURCE_DIR;
  LayerInputs inputs{(source / "profiles" / (profile + ".yaml")).string(), {}, {}};
  std::set<std::string> names;
  const std::optional<LayeredProfile> layered = LoadLayeredProfile(inputs, sink);
  EXPECT_TRUE(layered) << profile;
  if (!layered) return names;
  const std::optional<ProfileRender> render = RenderLoadedProfileWithPlan(layered->merged, sink);
  EXPECT_TRUE(render) << profile;
  if (!render) return names;
  for (const PlannedObject& o : render->plan.objects) {
    if (o.kind != "StatefulSet") continue;
    for (const Need& need : o.needs)
      // Devices are extended resources (vendor/name); cpu and memory are any pod's.
      if (need.what.kind == CapabilityKind::kResource &&
          need.what.name.find('/') != std::string::npos)
        names.insert(need.what.name);
  }
  return names;
}

// Every pod template of a rendered object (Deployment, DaemonSet, Job, StatefulSet: spec.template;
// CronJob: spec.jobTemplate.spec.template), or none.
YAML::Node PodSpecOf(const YAML::Node& doc) {
  const std::string kind = doc["kind"].as<std::string>();
  if (kind == "Pod") return doc["spec"];
  if (kind == "CronJob") return doc["spec"]["jobTemplate"]["spec"]["template"]["spec"];
  if (doc["spec"] && doc["spec"].IsMap() && doc["spec"]["template"] &&
      doc["spec"]["template"].IsMap() && doc["spec"]["template"]["spec"])
    return doc["spec"]["template"]["spec"];
  return YAML::Node();
}

// The checks share the nodes with the job, so no object but the workload's own pods
// may ask for the GPUs or VFs the job holds (the in-pod check needs none of its own; the
// periodic check's CronJob runs a coordinator with none). The one other pod on GPU nodes is the
// nightly check pod, which the bundle only describes (JSON in a ConfigMap) and the coordinator
// starts on idle nodes: it may ask for a node's devices only at a priority below every
// workload's that never preempts (docs/health.md).
TEST(InPodCheck, NoObjectButTheWorkloadsPodsTakesItsGpusOrVfs) {
  for (const char* profile : kShipped) {
    const std::set<std::string> devices = WorkloadDeviceResources(profile);
    ASSERT_TRUE(devices.count("nvidia.com/gpu")) << profile;
    ASSERT_GE(devices.size(), 2u) << profile;  // GPUs and the rails' VFs
    const auto docs = Render(profile);
    std::map<std::string, int> priorities;  // PriorityClass -> value, preempting
    for (const YAML::Node& pc : OfKind(docs, "PriorityClass"))
      priorities[pc["metadata"]["name"].as<std::string>()] =
          pc["preemptionPolicy"] && pc["preemptionPolicy"].as<std::string>() == "Never"
              ? pc["value"].as<int>()
              : 0;
    // The pods the bundle carries as data (the nightly check pod in its ConfigMap).
    std::vector<YAML::Node> all = docs;
    int carried_pods = 0;
    for (const YAML::Node& cm : OfKind(docs, "ConfigMap")) {
      if (!cm["data"]) continue;
      for (const auto& item : cm["data"]) {
        const nlohmann::json value = nlohmann::json::parse(item.second.as<std::string>(), nullptr, false);
        if (value.is_object() && value.value("kind", "") == "Pod") {
          all.push_back(YAML::Load(value.dump()));
          ++carried_pods;
        }
      }
    }
    int pod_templates = 0;
    for (const YAML::Node& doc : all) {
      const std::string kind = doc["kind"].as<std::string>();
      const YAML::Node spec = PodSpecOf(doc);
      if (!spec || kind == "StatefulSet") continue;
      ++pod_templates;
      std::set<std::string> taken;
      for (const char* list : {"initContainers", "containers"}) {
        if (!spec[list]) continue;
        for (const YAML::Node& c : spec[list]) {
          if (!c["resources"]) continue;
          for (const char* side : {"requests", "limits"}) {
            if (!c["resources"][side]) continue;
            for (const auto& r : c["resources"][side])
              if (devices.count(r.first.as<std::string>())) taken.insert(r.first.as<std::string>());
          }
        }
      }
      if (taken.empty()) continue;
      const YAML::Node meta = doc["metadata"];
      const std::string name = meta["name"] ? meta["name"].as<std::string>()
                                            : meta["generateName"].as<std::string>();
      ASSERT_EQ(kind, "Pod") << profile << ": " << kind << " " << name << " requests "
                                 << *taken.begin();
      const std::string priority =
          spec["priorityClassName"] ? spec["priorityClassName"].as<std::string>() : "";
      ASSERT_TRUE(priorities.count(priority)) << profile << " " << name;
      EXPECT_LT(priorities.at(priority), 0) << profile << " " << name;
    }
    EXPECT_GT(pod_templates, 0) << profile;  // the node agents at least
    EXPECT_EQ(carried_pods, 1) << profile;    // the nightly check pod was looked at
  }
}

TEST(FabricChecksum, ChangesWithEachFabricDependencyAndNamesIt) {
  struct Case {
    const char* profile;
    const char* set;
    std::set<std::string> parts;  // the parts that change
  };
  const Case cases[] = {
      // nv-ipam: the pool's subnet and gateway are in the IPPool, not in the NAD.
      {"oke-h100", "network.rails[0].ipam.pool.subnet=192.168.0.0/15", {"ip-pool"}},
      {"oke-h100", "network.rails[0].ipam.pool.gateway=192.168.0.254", {"ip-pool"}},
      // The MTU: in the NAD (its tuning plugin sets it on the VF in the pod).
      {"oke-h100", "network.rails[0].mtu_bytes=4200", {"nad"}},
      {"oke-h100", "fabric_health.gate.min_busbw_gbps=60", {"check"}},
      {"oke-h100", "fabric_health.gate.per_rail=false", {"check"}},
      // OpenShift: the RDMA netns switch chains the rdma CNI into the NADs and adds the
      // SriovNetworkPoolConfig that sets the mode.
      {"barcelona-h100-cx7", "network.rdma_netns=exclusive", {"nad", "rdma-mode"}},
      {"barcelona-h100-cx7", "network.rails[0].mtu_bytes=4200", {"nad"}},
      {"barcelona-h100-cx7", "network.rails[1].ipam.range=10.0.114.0/24", {"nad"}},
      {"barcelona-h100-cx7", "fabric_health.min_rail_fraction=0.5", {"check"}},
  };
  std::map<std::string, std::string> base;
  for (const Case& c : cases) {
    if (!base.count(c.profile)) base[c.profile] = FabricChecksum(Render(c.profile));
    std::string errors;
    const auto docs = Render(c.profile, {c.set}, &errors);
    ASSERT_FALSE(docs.empty()) << c.set << "\n" << errors;
    EXPECT_EQ(ChangedParts(base[c.profile], FabricChecksum(docs)), c.parts)
        << c.profile << " --set " << c.set << ": " << base[c.profile] << " -> "
        << FabricChecksum(docs);
  }
}

// A config-only change (nccl.debug) changes the config checksum and nothing the fabric check
// depends on; of the workload's objects only the ConfigMap and that annotation change.
TEST(FabricChecksum, AConfigOnlyChangeRerunsNothingElse) {
  for (const char* profile : kShipped) {
    const auto before = Render(profile);
    const auto after = Render(profile, {"nccl.debug=TRACE"});
    EXPECT_EQ(FabricChecksum(before), FabricChecksum(after)) << profile;
    EXPECT_NE(Annotation(before, "hkimgen.io/config-checksum"),
              Annotation(after, "hkimgen.io/config-checksum")) << profile;
    ASSERT_EQ(before.size(), after.size()) << profile;
    for (size_t i = 0; i < before.size(); ++i) {
      const std::string kind = before[i]["kind"].as<std::string>();
      if (kind == "ConfigMap") continue;
      YAML::Node a = YAML::Clone(before[i]), b = YAML::Clone(after[i]);
      if (kind == "StatefulSet") {
        a["spec"]["template"]["metadata"]["annotations"].remove("hkimgen.io/config-checksum");
        b["spec"]["template"]["metadata"]["annotations"].remove("hkimgen.io/config-checksum");
      }
      EXPECT_EQ(YAML::Dump(a), YAML::Dump(b)) << profile << " " << before[i]["__file"];
    }
  }
}

}  // namespace
}  // namespace hkim

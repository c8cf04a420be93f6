// Plan stage, workload: the NCCL env ConfigMap, the topology ConfigMap, the headless Service and
// the StatefulSet that starts the job through hkim-wrapper (pod runtime contract, ARCHITECTURE.md).

#include <cstdint>
#include <cstdio>
#include <map>

#include "plan/builder.h"
#include "plan/fabric_check.h"
#include "plan/pod_images.h"
#include "model/topology.h"
#include "model/wrapper_image.h"

namespace hkim::plan {
namespace {

using nlohmann::json;

constexpr const char* kTopologyMountPath = "/etc/hkim/topology";
constexpr const char* kTopologyFileKey = "topo.xml";
constexpr const char* kWrapperDir = "/opt/hkim/bin";
// NCCL's configuration file, in an emptyDir of its own: hkim-wrapper writes its per-pod decisions
// there (wrapper/hkim_wrapper/nccl_conf.h), so that processes started with `kubectl exec` or
// mpirun over ssh, which bypass the wrapper, still get them.
constexpr const char* kNcclConfDir = "/opt/hkim/nccl";
constexpr const char* kNcclConfFile = "/opt/hkim/nccl/nccl.conf";

// NCCL_* and HKIM_* variables of the env ConfigMap (pod runtime contract, ARCHITECTURE.md).
json NcclEnv(const PlanBuilder& b) {
  const Profile& p = b.profile();
  std::map<std::string, std::string> env;
  const NcclSettings& n = p.nccl;
  if (b.Rdma()) {
    env["NCCL_IB_TC"] = std::to_string(n.ib_tc);
    env["NCCL_IB_SL"] = std::to_string(n.ib_sl);
    env["NCCL_IB_TIMEOUT"] = std::to_string(n.ib_timeout);
    env["NCCL_IB_RETRY_CNT"] = std::to_string(n.ib_retry_count);
    env["NCCL_IB_QPS_PER_CONNECTION"] = std::to_string(n.ib_qps_per_connection);
    env["NCCL_IB_SPLIT_DATA_ON_QPS"] = n.ib_split_data_on_qps ? "1" : "0";
    env["NCCL_CROSS_NIC"] = std::to_string(n.cross_nic);
    if (!n.gdr_level.empty()) env["NCCL_NET_GDR_LEVEL"] = n.gdr_level;
    if (n.gpudirect == GpuDirect::kDmaBuf) env["NCCL_DMABUF_ENABLE"] = "1";
    if (n.gpudirect == GpuDirect::kNvidiaPeermem) env["NCCL_DMABUF_ENABLE"] = "0";
    if (n.gid_policy == GidPolicy::kIndex && n.gid_index)
      env["NCCL_IB_GID_INDEX"] = std::to_string(*n.gid_index);
    if (!n.ib_hca.empty()) {
      std::string list = "=";
      for (size_t i = 0; i < n.ib_hca.size(); ++i) list += (i ? "," : "") + n.ib_hca[i];
      env["NCCL_IB_HCA"] = list;
    }
    if (!n.socket_ifname.empty()) env["NCCL_SOCKET_IFNAME"] = n.socket_ifname;
    env["HKIM_ON_NO_RDMA"] = ToString(p.workload.on_no_rdma);
  } else {
    env["NCCL_IB_DISABLE"] = "1";
    env["NCCL_SOCKET_IFNAME"] = "eth0";
    env["HKIM_MODE"] = "tcp";
  }
  if (n.socket_nthreads) env["NCCL_SOCKET_NTHREADS"] = std::to_string(*n.socket_nthreads);
  if (!n.debug.empty()) env["NCCL_DEBUG"] = n.debug;
  if (b.HasTopology()) {
    env["NCCL_TOPO_FILE"] = std::string(kTopologyMountPath) + "/" + kTopologyFileKey;
  }
  env["NCCL_CONF_FILE"] = kNcclConfFile;  // before extra_env: a profile's own value wins
  for (const auto& [name, value] : n.extra_env) env[name] = value;

  const HealthCheck& h = p.health_check;
  env["HKIM_NCCL_CHECK"] = ToString(h.mode);
  if (h.mode != HealthCheckMode::kOff) {
    char gbps[32];
    std::snprintf(gbps, sizeof gbps, "%g", h.min_busbw_gbps);
    env["HKIM_NCCL_CHECK_SCOPE"] = ToString(h.scope);
    env["HKIM_NCCL_CHECK_MIN_BUSBW_GBPS"] = gbps;
    env["HKIM_NCCL_CHECK_AT_BYTES"] = std::to_string(h.at_bytes);
    env["HKIM_NCCL_CHECK_MAX_BYTES"] = std::to_string(h.max_bytes);
    env["HKIM_NCCL_CHECK_TRANSPORT"] = h.transport;
  }
  env["HKIM_RENDEZVOUS_PORT"] = std::to_string(p.wrapper.rendezvous_port);

  json data = json::array();
  for (const auto& [name, value] : env) data.push_back(json{{"key", name}, {"value", value}});
  return data;
}

// Multus networks (each rail's NAD, in the pod's namespace, attachments_per_pod times) and the
// resources a pod requests and is limited to: its GPUs and, with RDMA, each rail's devices.
json PodResourcesContext(const PlanBuilder& b) {
  const Profile& p = b.profile();
  const Workload& w = p.workload;
  std::string networks;
  const std::string gpus = std::to_string(w.gpus_per_pod);
  std::map<std::string, std::string> requests(w.resource_requests), limits(w.resource_limits);
  if (b.Rdma()) {
    for (const Rail& rail : p.network.rails) {
      for (int i = 0; i < rail.attachments_per_pod; ++i)
        networks += (networks.empty() ? "" : ",") + rail.nad_name;
      requests[rail.resource_name] = std::to_string(rail.attachments_per_pod);
      limits[rail.resource_name] = std::to_string(rail.attachments_per_pod);
    }
  }
  requests["nvidia.com/gpu"] = gpus;
  limits["nvidia.com/gpu"] = gpus;
  auto list = [](const std::map<std::string, std::string>& map) {
    json out = json::array();
    for (const auto& [name, value] : map) out.push_back(json{{"name", name}, {"value", value}});
    return out;
  };
  json c;
  c["has_networks"] = !networks.empty();
  c["networks"] = networks;
  c["requests"] = list(requests);
  c["limits"] = list(limits);
  return c;
}

// Where the pods run: the pod spec keys the Jobs of plan/health.cc set differently
// (common/pod-spec.mustache), the nodes the profile includes or excludes, its node selector and
// tolerations.
json PodPlacementContext(const Profile& p) {
  json c;
  c["has_restart_policy"] = false;
  c["restart_policy"] = "";
  c["has_subdomain"] = false;
  c["subdomain"] = "";
  c["has_priority_class"] = false;
  c["priority_class"] = "";
  c["avoid_unhealthy_nodes"] = true;
  c["health_label"] = kHealthLabel;
  auto hosts = [](const std::vector<std::string>& names) {
    json out = json::array();
    for (const std::string& name : names) out.push_back(json{{"value", name}});
    return out;
  };
  c["has_include_nodes"] = !p.node_shape.include_nodes.empty();
  c["include_nodes"] = hosts(p.node_shape.include_nodes);
  c["has_exclude_nodes"] = !p.node_shape.exclude_nodes.empty();
  c["exclude_nodes"] = hosts(p.node_shape.exclude_nodes);
  c["has_node_affinity"] = true;  // the health mark at least
  json selector = json::array();
  for (const auto& [key, value] : p.node_shape.node_selector)
    selector.push_back(json{{"key", key}, {"value", value}});
  c["has_node_selector"] = !selector.empty();
  c["node_selector"] = selector;
  c.update(TolerationsContext(p.node_shape.tolerations));
  return c;
}

// The container's privileges: IPC_LOCK with RDMA (SYS_RESOURCE too for the SCC strategy),
// privileged only when the profile's memlock strategy asks for it, the user it runs as.
json ContainerSecurityContext(const PlanBuilder& b) {
  const Profile& p = b.profile();
  const bool privileged = b.Rdma() && p.security.memlock_strategy == MemlockStrategy::kPrivileged;
  json caps = json::array();
  if (b.Rdma()) {
    caps.push_back(json{{"value", "IPC_LOCK"}});
    if (p.security.memlock_strategy == MemlockStrategy::kSysResourceScc)
      caps.push_back(json{{"value", "SYS_RESOURCE"}});
  }
  json c;
  c["privileged"] = privileged;
  c["has_capabilities"] = !caps.empty();
  c["capabilities"] = caps;
  c["has_run_as_user"] = p.security.run_as_user.has_value();
  c["run_as_user"] = p.security.run_as_user.value_or(0);
  return c;
}

json StatefulSetContext(const PlanBuilder& b, const std::string& ns) {
  const Profile& p = b.profile();
  const Workload& w = p.workload;
  json c;
  c["replicas"] = w.replicas;
  c["service_name"] = w.service_name;
  c["app"] = w.name;
  c["service_account"] = p.security.service_account;
  c["host_ipc"] = p.security.host_ipc;
  c["termination_grace_period_seconds"] = w.termination_grace_period_seconds;
  c["image"] = w.image;
  // The health CronJob copies this pod spec, so every init container runs it.
  c["wrapper_image"] = WrapperImageReference(p.wrapper);
  c["wrapper_dir"] = kWrapperDir;
  c["wrapper_install_command"] =
      json::array({json{{"value", "/hkim/bin/hkim-wrapper"}}, json{{"value", "--install-to"}},
                   json{{"value", kWrapperDir}}});
  json command = json::array(
      {json{{"value", std::string(kWrapperDir) + "/hkim-wrapper"}}, json{{"value", "--"}}});
  for (const std::string& arg : w.command) command.push_back(json{{"value", arg}});
  c["command"] = command;
  c["master_port"] = w.master_port;
  c["nccl_configmap"] = b.NcclConfigMapName();
  c.update(PodResourcesContext(b));
  c.update(PodPlacementContext(p));
  c["field_env"] = json::array({json{{"name", "HKIM_POD_NAME"}, {"field_path", "metadata.name"}}});

  json env = json::array();
  env.push_back(json{{"name", "MASTER_ADDR"},
                     {"value", w.name + "-0." + w.service_name + "." + ns + ".svc.cluster.local"}});
  env.push_back(json{{"name", "MASTER_PORT"}, {"value", std::to_string(w.master_port)}});
  env.push_back(json{{"name", "HKIM_REPLICAS"}, {"value", std::to_string(w.replicas)}});
  for (const auto& [name, value] : w.env) env.push_back(json{{"name", name}, {"value", value}});
  c["env"] = env;

  c.update(ContainerSecurityContext(b));
  c.update(InPodCheckOff());  // PlanInPodFabricCheck turns it on
  c["shm_size"] = w.shm_size;
  c["nccl_conf_dir"] = kNcclConfDir;
  c["has_topology"] = b.HasTopology();
  c["topology_configmap"] = b.TopologyConfigMapName();
  c["topology_mount_path"] = kTopologyMountPath;
  return c;
}

/// What the workload's pods need from the nodes (the health CronJob shares their pod spec): the extended resources they request, the labels they select, GPUDirect RDMA.
void NeedPodRequirements(const PlanBuilder& b, PlannedObject& sts) {
  const Profile& p = b.profile();
  const Workload& w = p.workload;
  sts.source_pointer = w.pointer;
  Needs(sts, CapabilityKind::kResource, "nvidia.com/gpu", w.pointer + "/gpus_per_pod",
        "its pods request GPUs");
  if (b.Rdma()) {
    for (const Rail& rail : p.network.rails)
      Needs(sts, CapabilityKind::kResource, rail.resource_name, rail.pointer + "/resource_name",
            "its pods request rail " + rail.name + "'s VFs");
    // nccl.gpudirect auto still means GPUDirect: without it NCCL stages through host memory.
    const char* mode = p.nccl.gpudirect == GpuDirect::kDmaBuf         ? "dmabuf"
                       : p.nccl.gpudirect == GpuDirect::kNvidiaPeermem ? "nvidia-peermem"
                                                                      : "any";
    Needs(sts, CapabilityKind::kGpuDirect, mode, p.nccl.pointer + "/gpudirect",
          "nccl.gpudirect: " + std::string(ToString(p.nccl.gpudirect)));
  }
  for (const auto& [name, value] : w.resource_requests)
    Needs(sts, CapabilityKind::kResource, name,
          w.pointer + "/resources/requests/" + PointerKey(name), "its pods request it");
  NeedNodeLabels(sts, p.node_shape.node_selector, NodeSelectorPointer, "its nodeSelector");
  if (p.scheduling.kueue)
    Needs(sts, CapabilityKind::kCrd, "kueue.x-k8s.io/LocalQueue", p.scheduling.kueue->pointer,
          "its kueue.x-k8s.io/queue-name label: Kueue admits it through a LocalQueue");
  NeedPodSpecImages(p, sts);
}

// What the pods read from their ConfigMaps at start, as a hash in the pod template: a changed
// ConfigMap then changes the template, so the StatefulSet replaces its pods deliberately (diff
// names it a job restart) instead of leaving running pods on the old values while a pod that
// restarts later gets the new ones, which would mix NCCL settings within one job. FNV-1a: the
// hash only has to change with its input, nothing here is a secret.
class ConfigChecksum {
 public:
  void Add(const std::string& text) {
    for (unsigned char c : text) hash_ = (hash_ ^ c) * 0x100000001b3ULL;
    hash_ = (hash_ ^ 0xffU) * 0x100000001b3ULL;  // separates the inputs
  }
  std::string Text() const {
    char text[32];
    std::snprintf(text, sizeof text, "fnv1a64:%016llx", static_cast<unsigned long long>(hash_));
    return text;
  }

 private:
  uint64_t hash_ = 0xcbf29ce484222325ULL;
};

}  // namespace

void PlanWorkload(PlanBuilder& b, const std::string& ns) {
  const Profile& p = b.profile();
  PlannedObject& env = b.Add("common/configmap-nccl-env.yaml.mustache", "v1", "ConfigMap",
                             b.NcclConfigMapName(), ns, kWaveConfig, false);
  env.context["data"] = NcclEnv(b);
  ConfigChecksum checksum;
  checksum.Add(env.context["data"].dump());
  if (b.HasTopology()) {
    PlannedObject& topo = b.Add("common/configmap-topology.yaml.mustache", "v1", "ConfigMap",
                                b.TopologyConfigMapName(), ns, kWaveConfig, false);
    topo.context["key"] = kTopologyFileKey;
    topo.context["xml"] = RenderTopologyXml(p.node_shape.topology);
    topo.context["shape"] = p.node_shape.topology.preset;
    checksum.Add(topo.context["xml"].get<std::string>());
  }
  PlannedObject& svc = b.Add("common/service.yaml.mustache", "v1", "Service",
                             p.workload.service_name, ns, kWaveService, false);
  svc.context["app"] = p.workload.name;
  svc.context["master_port"] = p.workload.master_port;
  svc.context["rendezvous_port"] = p.wrapper.rendezvous_port;
  PlannedObject& sts = b.Add("common/statefulset.yaml.mustache", "apps/v1", "StatefulSet",
                             p.workload.name, ns, kWaveWorkload, false);
  json meta = sts.context["metadata"];
  NeedPodRequirements(b, sts);
  sts.context = StatefulSetContext(b, ns);
  sts.context["metadata"] = meta;
  sts.context["rendezvous_port"] = p.wrapper.rendezvous_port;
  sts.context["config_checksum"] = checksum.Text();
  sts.context.update(QueueContext(p));  // scheduling.kueue (plan/scheduling.cc)
  // A copy, before the in-pod check: the health CronJob runs the same pod spec with its own
  // command and env; adding objects may move the StatefulSet's entry in plan.objects.
  const json workload_pod = sts.context;
  PlanInPodFabricCheck(p, sts.context);
  sts.context["fabric_checksum"] =
      FabricChecksum(b.plan(), ns, sts.context, b.digests());
  PlanFabricHealthNamespace(p, ns, workload_pod, kHealthWaves, b.plan());
}

}  // namespace hkim::plan

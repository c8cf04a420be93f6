// Plan stage: Profile -> BundlePlan. Decides which objects the bundle holds, their names,
// namespaces, Argo CD sync waves and file names, and fills each template's context.
//
// Template context convention (see docs/ARCHITECTURE.md, "Templates"): every value a template
// prints with {{name}} is a JSON string (printed as one double-quoted YAML scalar) or a JSON
// number (printed plain). Booleans are only used as sections ({{#flag}}...{{/flag}}), lists as
// sections over objects. Everything that comes from the profile goes through {{...}}.

#include "plan.h"

#include <algorithm>
#include <cstdio>
#include <tuple>

#include "plan_health.h"
#include "topology.h"

namespace hkim {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// Sync waves, in dependency order: node configuration and operator policies first, then
// cluster-scoped security and address pools, then per-namespace identities and networks, then
// configuration, the Service, and the StatefulSet last.
constexpr int kWaveNodeAndOperators = 0;
constexpr int kWaveClusterPolicy = 1;
constexpr int kWaveNamespaceAccess = 2;
constexpr int kWaveConfig = 3;
constexpr int kWaveService = 4;
constexpr int kWaveWorkload = 5;

// The fabric gate runs with the Services, so the StatefulSet's wave starts only after it passed.
constexpr HealthWaves kHealthWaves{kWaveNamespaceAccess, kWaveService, kWaveWorkload};

constexpr const char* kSkipDryRun = "SkipDryRunOnMissingResource=true";
constexpr const char* kTopologyMountPath = "/etc/hkim/topology";
constexpr const char* kTopologyFileKey = "topo.xml";
constexpr const char* kWrapperDir = "/opt/hkim/bin";

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string FileName(int wave, const std::string& kind, const std::string& namespace_name,
                     const std::string& name) {
  char prefix[8];
  std::snprintf(prefix, sizeof prefix, "%02d", wave * 10);
  std::string file = std::string(prefix) + "-" + Lower(kind) + "-";
  if (!namespace_name.empty()) file += namespace_name + "-";
  file += name + ".yaml";
  // ClusterRole names like hkimgen:<cluster>:<purpose> make poor file names (Windows, URLs).
  std::replace(file.begin(), file.end(), ':', '-');
  return file;
}

// The metadata every template prints: name, namespace, labels, Argo CD annotations.
json Metadata(const PlannedObject& object, const Profile& profile, bool skip_dry_run) {
  json meta;
  meta["name"] = object.name;
  if (!object.namespace_name.empty()) meta["namespace"] = object.namespace_name;
  meta["sync_wave"] = std::to_string(object.sync_wave);
  meta["skip_dry_run"] = skip_dry_run;
  meta["skip_dry_run_option"] = kSkipDryRun;
  meta["part_of"] = profile.cluster_name;
  return meta;
}

}  // namespace

PlannedObject& AddPlannedObject(BundlePlan& plan, const Profile& profile,
                                const std::string& template_name, const std::string& api_version,
                                const std::string& kind, const std::string& name,
                                const std::string& namespace_name, int wave, bool skip_dry_run) {
  PlannedObject object;
  object.template_name = template_name;
  object.api_version = api_version;
  object.kind = kind;
  object.name = name;
  object.namespace_name = namespace_name;
  object.sync_wave = wave;
  object.file_name = FileName(wave, kind, namespace_name, name);
  object.context["metadata"] = Metadata(object, profile, skip_dry_run);
  plan.objects.push_back(std::move(object));
  return plan.objects.back();
}

namespace {

class Planner {
 public:
  explicit Planner(const Profile& profile) : p_(profile) {}
  BundlePlan Plan();

 private:
  PlannedObject& Add(const std::string& template_name, const std::string& api_version,
                     const std::string& kind, const std::string& name,
                     const std::string& namespace_name, int wave, bool skip_dry_run) {
    return AddPlannedObject(plan_, p_, template_name, api_version, kind, name, namespace_name,
                            wave, skip_dry_run);
  }

  bool Rdma() const { return p_.workload.mode == WorkloadMode::kRdma; }
  bool HasTopology() const { return !p_.node_shape.topology.empty(); }
  std::string NcclConfigMapName() const { return p_.workload.name + "-nccl-env"; }
  std::string TopologyConfigMapName() const { return p_.workload.name + "-nccl-topology"; }

  void PlanOpenShiftCluster();
  void PlanOkeCluster();
  void PlanNamespace(const std::string& ns);
  ordered_json NadConfig(const Rail& rail) const;
  json NcclEnv() const;
  json StatefulSetContext(const std::string& ns) const;

  const Profile& p_;
  BundlePlan plan_;
};

void Planner::PlanOpenShiftCluster() {
  const std::string& role = p_.iommu.machine_config_role;
  if (p_.iommu.policy == IommuPolicy::kPassthrough) {
    PlannedObject& mc =
        Add("openshift/machineconfig-iommu.yaml.mustache", "machineconfiguration.openshift.io/v1",
            "MachineConfig", "99-" + role + "-iommu-passthrough", "", kWaveNodeAndOperators, false);
    mc.context["role"] = role;
    mc.context["kernel_arguments"] = json::array(
        {json{{"value",
               p_.node_shape.cpu_vendor == CpuVendor::kAmd ? "amd_iommu=on" : "intel_iommu=on"}},
         json{{"value", "iommu=pt"}}});
  }
  if (Rdma() && p_.security.memlock_strategy == MemlockStrategy::kCrioUlimits) {
    PlannedObject& mc = Add("openshift/machineconfig-crio-memlock.yaml.mustache",
                            "machineconfiguration.openshift.io/v1", "MachineConfig",
                            "99-" + role + "-crio-memlock", "", kWaveNodeAndOperators, false);
    mc.context["role"] = role;
  }
  if (Rdma() && p_.security.memlock_strategy != MemlockStrategy::kPrivileged) {
    PlannedObject& scc =
        Add("openshift/scc.yaml.mustache", "security.openshift.io/v1", "SecurityContextConstraints",
            p_.security.scc_name, "", kWaveClusterPolicy, false);
    json caps = json::array({json{{"value", "IPC_LOCK"}}});
    if (p_.security.memlock_strategy == MemlockStrategy::kSysResourceScc)
      caps.push_back(json{{"value", "SYS_RESOURCE"}});
    scc.context["allowed_capabilities"] = caps;
    scc.context["host_ipc"] = p_.security.host_ipc;
    scc.context["description"] = "hkimgen: lets " + p_.security.service_account +
                                 " lock memory for RDMA (" +
                                 ToString(p_.security.memlock_strategy) + ")";
  }
}

void Planner::PlanOkeCluster() {
  for (const std::string& ns : p_.namespaces) {
    PlannedObject& n =
        Add("oke/namespace.yaml.mustache", "v1", "Namespace", ns, "", kWaveNodeAndOperators, false);
    // Adding IPC_LOCK (and privileged, if asked) is beyond the baseline Pod Security level;
    // tcp mode adds no capability.
    n.context["pod_security_level"] = Rdma() ? "privileged" : "baseline";
  }
  if (!Rdma() || !p_.network.sriov_device_plugin) return;
  const SriovDevicePlugin& plugin = *p_.network.sriov_device_plugin;
  PlannedObject& policy =
      Add("oke/nicclusterpolicy.yaml.mustache", "mellanox.com/v1alpha1", "NicClusterPolicy",
          "nic-cluster-policy", "", kWaveNodeAndOperators, true);
  ordered_json selectors = {{"vendors", plugin.vendor_ids},
                            {"devices", plugin.device_ids},
                            {"drivers", plugin.drivers},
                            {"isRdma", true}};
  ordered_json resource = {{"resourcePrefix", plugin.resource_prefix},
                           {"resourceName", plugin.resource_name},
                           {"selectors", selectors}};
  policy.context["sriov_device_plugin"] = {
      {"repository", plugin.repository},
      {"image", plugin.image},
      {"version", plugin.version},
      {"config", ordered_json{{"resourceList", ordered_json::array({resource})}}.dump(2) + "\n"}};
  const NvIpamController ipam = p_.network.nv_ipam.value_or(NvIpamController{});
  bool uses_nv_ipam = false;
  for (const Rail& rail : p_.network.rails) uses_nv_ipam |= rail.ipam.type == IpamType::kNvIpam;
  policy.context["has_nv_ipam"] = uses_nv_ipam;
  policy.context["nv_ipam"] = {{"repository", ipam.repository},
                               {"image", ipam.image},
                               {"version", ipam.version},
                               {"enable_webhook", ipam.enable_webhook}};
  std::vector<std::pair<std::string, std::string>> pools_done;
  for (const Rail& rail : p_.network.rails) {
    if (rail.ipam.type != IpamType::kNvIpam || !rail.ipam.pool) continue;
    const NvIpamPool& pool = *rail.ipam.pool;
    const auto key = std::make_pair(pool.namespace_name, pool.name);
    if (std::find(pools_done.begin(), pools_done.end(), key) != pools_done.end()) continue;
    pools_done.push_back(key);
    PlannedObject& object = Add("oke/ippool.yaml.mustache", "nv-ipam.nvidia.com/v1alpha1", "IPPool",
                                pool.name, pool.namespace_name, kWaveClusterPolicy, true);
    object.context["subnet"] = pool.subnet;
    object.context["per_node_block_size"] = pool.per_node_block_size;
    object.context["has_gateway"] = !pool.gateway.empty();
    object.context["gateway"] = pool.gateway;
    json selector = json::array();
    for (const auto& [key, value] : p_.node_shape.node_selector)
      selector.push_back(json{{"key", key}, {"value", value}});
    object.context["has_node_selector"] = !selector.empty();
    object.context["node_selector"] = selector;
  }
}

// The CNI configuration of a rail's NAD (a JSON document stored as a string in the NAD); keys in
// the order CNI documentation and the Barcelona NADs use.
ordered_json Planner::NadConfig(const Rail& rail) const {
  ordered_json ipam;
  if (rail.ipam.type == IpamType::kWhereabouts) {
    ipam = {{"type", "whereabouts"}, {"range", rail.ipam.range}};
    if (!rail.ipam.gateway.empty()) ipam["gateway"] = rail.ipam.gateway;
    if (!rail.ipam.routes.empty()) {
      ordered_json routes = ordered_json::array();
      for (const std::string& dst : rail.ipam.routes) routes.push_back(ordered_json{{"dst", dst}});
      ipam["routes"] = routes;
    }
  } else {
    ipam = {{"type", "nv-ipam"}, {"poolName", rail.ipam.pool ? rail.ipam.pool->name : ""}};
  }
  if (p_.IsOpenShift()) {
    // Same shape as the NADs that worked on Barcelona (k8s/network-attachments/base).
    ordered_json config = ordered_json::object();
    config["cniVersion"] = rail.cni_version;
    config["name"] = rail.nad_name;
    config["type"] = "sriov";
    config["mtu"] = rail.mtu_bytes;
    config["vlan"] = rail.vlan;
    config["spoofchk"] = rail.spoof_check ? "on" : "off";
    config["trust"] = rail.trust ? "on" : "off";
    config["vlanQoS"] = 0;
    config["link_state"] = "enable";
    config["logLevel"] = "info";
    config["ipam"] = ipam;
    return config;
  }
  // OKE: sriov + tuning (ARP sysctls, MTU) + rdma + sbr, as oci-hpc-oke's oci-rdma-sriov.
  ordered_json sriov = {{"type", "sriov"},
                        {"name", "sriov-network"},
                        {"spoofchk", rail.spoof_check ? "on" : "off"},
                        {"ipam", ipam}};
  if (rail.vlan) sriov["vlan"] = rail.vlan;
  ordered_json tuning = {{"type", "tuning"},
                         {"sysctl",
                          {{"net.ipv4.conf.all.arp_announce", "2"},
                           {"net.ipv4.conf.all.arp_filter", "1"},
                           {"net.ipv4.conf.all.arp_ignore", "1"},
                           {"net.ipv4.conf.all.rp_filter", "0"},
                           {"net.ipv4.conf.all.accept_local", "1"}}},
                         {"mtu", rail.mtu_bytes}};
  ordered_json config = ordered_json::object();
  config["cniVersion"] = rail.cni_version;
  config["name"] = rail.nad_name;
  config["plugins"] = ordered_json::array(
      {sriov, tuning, ordered_json{{"type", "rdma"}}, ordered_json{{"type", "sbr"}}});
  return config;
}

// NCCL_* and HKIM_* variables of the env ConfigMap (pod runtime contract, ARCHITECTURE.md).
json Planner::NcclEnv() const {
  std::map<std::string, std::string> env;
  const NcclSettings& n = p_.nccl;
  if (Rdma()) {
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
    env["HKIM_ON_NO_RDMA"] = ToString(p_.workload.on_no_rdma);
  } else {
    env["NCCL_IB_DISABLE"] = "1";
    env["NCCL_SOCKET_IFNAME"] = "eth0";
    env["HKIM_MODE"] = "tcp";
  }
  if (n.socket_nthreads) env["NCCL_SOCKET_NTHREADS"] = std::to_string(*n.socket_nthreads);
  if (!n.debug.empty()) env["NCCL_DEBUG"] = n.debug;
  if (HasTopology()) {
    env["NCCL_TOPO_FILE"] = std::string(kTopologyMountPath) + "/" + kTopologyFileKey;
  }
  for (const auto& [name, value] : n.extra_env) env[name] = value;

  const HealthCheck& h = p_.health_check;
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
  env["HKIM_RENDEZVOUS_PORT"] = std::to_string(p_.wrapper.rendezvous_port);

  json data = json::array();
  for (const auto& [name, value] : env) data.push_back(json{{"key", name}, {"value", value}});
  return data;
}

json Planner::StatefulSetContext(const std::string& ns) const {
  const Workload& w = p_.workload;
  json c;
  c["replicas"] = w.replicas;
  c["service_name"] = w.service_name;
  c["app"] = w.name;
  c["service_account"] = p_.security.service_account;
  c["host_ipc"] = p_.security.host_ipc;
  c["termination_grace_period_seconds"] = w.termination_grace_period_seconds;
  c["image"] = w.image;
  c["wrapper_image"] = p_.wrapper.image;
  c["wrapper_dir"] = kWrapperDir;
  c["wrapper_install_command"] =
      json::array({json{{"value", "/hkim/bin/hkim-wrapper"}}, json{{"value", "--install-to"}},
                   json{{"value", kWrapperDir}}});
  json command = json::array(
      {json{{"value", std::string(kWrapperDir) + "/hkim-wrapper"}}, json{{"value", "--"}}});
  for (const std::string& arg : w.command) command.push_back(json{{"value", arg}});
  c["command"] = command;
  c["master_port"] = w.master_port;
  c["nccl_configmap"] = NcclConfigMapName();

  // Multus networks: each rail's NAD (in the pod's namespace), attachments_per_pod times.
  std::string networks;
  json resources = json::array();
  const std::string gpus = std::to_string(w.gpus_per_pod);
  resources.push_back(json{{"name", "nvidia.com/gpu"}, {"value", gpus}});
  std::map<std::string, std::string> requests(w.resource_requests), limits(w.resource_limits);
  if (Rdma()) {
    for (const Rail& rail : p_.network.rails) {
      for (int i = 0; i < rail.attachments_per_pod; ++i)
        networks += (networks.empty() ? "" : ",") + rail.nad_name;
      requests[rail.resource_name] = std::to_string(rail.attachments_per_pod);
      limits[rail.resource_name] = std::to_string(rail.attachments_per_pod);
    }
  }
  requests["nvidia.com/gpu"] = gpus;
  limits["nvidia.com/gpu"] = gpus;
  c["has_networks"] = !networks.empty();
  c["networks"] = networks;
  auto list = [](const std::map<std::string, std::string>& map) {
    json out = json::array();
    for (const auto& [name, value] : map) out.push_back(json{{"name", name}, {"value", value}});
    return out;
  };
  c["requests"] = list(requests);
  c["limits"] = list(limits);

  // Pod spec keys the Jobs of plan_health.cc set differently (common/pod-spec.mustache).
  c["has_restart_policy"] = false;
  c["restart_policy"] = "";
  c["has_subdomain"] = false;
  c["subdomain"] = "";
  c["has_priority_class"] = false;
  c["priority_class"] = "";
  c["avoid_unhealthy_nodes"] = true;
  c["health_label"] = kHealthLabel;
  c["field_env"] = json::array({json{{"name", "HKIM_POD_NAME"}, {"field_path", "metadata.name"}}});

  json env = json::array();
  env.push_back(json{{"name", "MASTER_ADDR"},
                     {"value", w.name + "-0." + w.service_name + "." + ns + ".svc.cluster.local"}});
  env.push_back(json{{"name", "MASTER_PORT"}, {"value", std::to_string(w.master_port)}});
  env.push_back(json{{"name", "HKIM_REPLICAS"}, {"value", std::to_string(w.replicas)}});
  for (const auto& [name, value] : w.env) env.push_back(json{{"name", name}, {"value", value}});
  c["env"] = env;

  json selector = json::array();
  for (const auto& [key, value] : p_.node_shape.node_selector)
    selector.push_back(json{{"key", key}, {"value", value}});
  c["has_node_selector"] = !selector.empty();
  c["node_selector"] = selector;
  json tolerations = json::array();
  for (const Toleration& t : p_.node_shape.tolerations) {
    json item = {{"operator", t.operator_name}};
    item["has_key"] = !t.key.empty();
    item["key"] = t.key;
    item["has_value"] = !t.value.empty();
    item["value"] = t.value;
    item["has_effect"] = !t.effect.empty();
    item["effect"] = t.effect;
    tolerations.push_back(item);
  }
  c["has_tolerations"] = !tolerations.empty();
  c["tolerations"] = tolerations;

  const bool privileged = Rdma() && p_.security.memlock_strategy == MemlockStrategy::kPrivileged;
  json caps = json::array();
  if (Rdma()) {
    caps.push_back(json{{"value", "IPC_LOCK"}});
    if (p_.security.memlock_strategy == MemlockStrategy::kSysResourceScc)
      caps.push_back(json{{"value", "SYS_RESOURCE"}});
  }
  c["privileged"] = privileged;
  c["has_capabilities"] = !caps.empty();
  c["capabilities"] = caps;
  c["has_run_as_user"] = p_.security.run_as_user.has_value();
  c["run_as_user"] = p_.security.run_as_user.value_or(0);
  c["shm_size"] = w.shm_size;
  c["has_topology"] = HasTopology();
  c["topology_configmap"] = TopologyConfigMapName();
  c["topology_mount_path"] = kTopologyMountPath;
  return c;
}

void Planner::PlanNamespace(const std::string& ns) {
  const Security& s = p_.security;
  if (p_.IsOpenShift()) {
    PlannedObject& sa = Add("common/serviceaccount.yaml.mustache", "v1", "ServiceAccount",
                            s.service_account, ns, kWaveNamespaceAccess, false);
    (void)sa;
    if (Rdma()) {
      // GitOps form of `oc adm policy add-scc-to-user <scc> -z <sa>`: `use` on the one SCC.
      const std::string scc = s.memlock_strategy == MemlockStrategy::kPrivileged
                                  ? std::string("privileged")
                                  : s.scc_name;
      const std::string role_name = s.service_account + "-use-scc-" + scc;
      PlannedObject& role = Add("openshift/role-scc.yaml.mustache", "rbac.authorization.k8s.io/v1",
                                "Role", role_name, ns, kWaveNamespaceAccess, false);
      role.context["scc"] = scc;
      PlannedObject& binding =
          Add("openshift/rolebinding-scc.yaml.mustache", "rbac.authorization.k8s.io/v1",
              "RoleBinding", role_name, ns, kWaveNamespaceAccess, false);
      binding.context["role"] = role_name;
      binding.context["service_account"] = s.service_account;
    }
  } else {
    Add("common/serviceaccount.yaml.mustache", "v1", "ServiceAccount", s.service_account, ns,
        kWaveNamespaceAccess, false);
  }
  if (Rdma()) {
    for (const Rail& rail : p_.network.rails) {
      PlannedObject& nad =
          Add("common/nad.yaml.mustache", "k8s.cni.cncf.io/v1", "NetworkAttachmentDefinition",
              rail.nad_name, ns, kWaveNamespaceAccess, !p_.IsOpenShift());
      nad.context["resource_name"] = rail.resource_name;
      nad.context["config"] = NadConfig(rail).dump(2) + "\n";
    }
  }
  PlannedObject& env = Add("common/configmap-nccl-env.yaml.mustache", "v1", "ConfigMap",
                           NcclConfigMapName(), ns, kWaveConfig, false);
  env.context["data"] = NcclEnv();
  if (HasTopology()) {
    PlannedObject& topo = Add("common/configmap-topology.yaml.mustache", "v1", "ConfigMap",
                              TopologyConfigMapName(), ns, kWaveConfig, false);
    topo.context["key"] = kTopologyFileKey;
    topo.context["xml"] = RenderTopologyXml(p_.node_shape.topology);
    topo.context["shape"] = p_.node_shape.topology.preset;
  }
  PlannedObject& svc = Add("common/service.yaml.mustache", "v1", "Service",
                           p_.workload.service_name, ns, kWaveService, false);
  svc.context["app"] = p_.workload.name;
  svc.context["master_port"] = p_.workload.master_port;
  svc.context["rendezvous_port"] = p_.wrapper.rendezvous_port;
  PlannedObject& sts = Add("common/statefulset.yaml.mustache", "apps/v1", "StatefulSet",
                           p_.workload.name, ns, kWaveWorkload, false);
  json meta = sts.context["metadata"];
  sts.context = StatefulSetContext(ns);
  sts.context["metadata"] = meta;
  sts.context["rendezvous_port"] = p_.wrapper.rendezvous_port;
  // A copy: adding objects may move the StatefulSet's entry in plan_.objects.
  const json workload_pod = sts.context;
  PlanFabricHealthNamespace(p_, ns, workload_pod, kHealthWaves, plan_);
}

BundlePlan Planner::Plan() {
  plan_.bundle_name = p_.cluster_name;
  if (p_.IsOpenShift())
    PlanOpenShiftCluster();
  else
    PlanOkeCluster();
  for (const std::string& ns : p_.namespaces) PlanNamespace(ns);
  PlanFabricHealthCluster(p_, kHealthWaves, plan_);

  std::stable_sort(plan_.objects.begin(), plan_.objects.end(),
                   [](const PlannedObject& a, const PlannedObject& b) {
                     return std::tie(a.sync_wave, a.kind, a.namespace_name, a.name) <
                            std::tie(b.sync_wave, b.kind, b.namespace_name, b.name);
                   });

  PlannedObject& k = plan_.kustomization;
  k.template_name = "common/kustomization.yaml.mustache";
  k.api_version = "kustomize.config.k8s.io/v1beta1";
  k.kind = "Kustomization";
  k.file_name = "kustomization.yaml";
  json files = json::array();
  for (const PlannedObject& object : plan_.objects)
    files.push_back(json{{"file", object.file_name}});
  k.context["resources"] = files;

  PlannedObject& app = plan_.application;
  app.template_name = "common/application.yaml.mustache";
  app.api_version = "argoproj.io/v1alpha1";
  app.kind = "Application";
  app.name = p_.cluster_name;
  app.namespace_name = p_.gitops.argocd_namespace;
  app.file_name = "application.yaml";
  app.context["metadata"] = {{"name", app.name}, {"namespace", app.namespace_name}};
  app.context["project"] = p_.gitops.project;
  app.context["repo_url"] = p_.gitops.repo_url;
  app.context["path"] = p_.gitops.path;
  app.context["revision"] = p_.gitops.revision;
  app.context["server"] = p_.gitops.destination_server;
  app.context["destination_namespace"] = p_.gitops.destination_namespace;
  app.context["automated"] = p_.gitops.automated_sync;
  return plan_;
}

}  // namespace

BundlePlan PlanBundle(const Profile& profile) { return Planner(profile).Plan(); }

}  // namespace hkim

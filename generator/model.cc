// Model stage: schema-valid JSON -> typed Profile with defaults, plus cross-field checks.
// The defaults below mirror the "default" keywords of schemas/profile.schema.json;
// model_test checks that the two agree.

#include "model.h"

#include <cstdint>
#include <cstdio>
#include <limits>
#include <set>
#include <utility>

#include "model_checks.h"
#include "topology.h"

namespace hkim {

const char* ToString(Platform value) {
  switch (value) {
    case Platform::kOpenShift:
      return "openshift";
    case Platform::kOke:
      return "oke";
    case Platform::kKubernetes:
      return "kubernetes";
  }
  return "?";
}
const char* ToString(Fabric value) { return value == Fabric::kRoceV2 ? "roce-v2" : "infiniband"; }
const char* ToString(IpamType value) {
  return value == IpamType::kWhereabouts ? "whereabouts" : "nv-ipam";
}
const char* ToString(CpuVendor value) { return value == CpuVendor::kIntel ? "intel" : "amd"; }
const char* ToString(GidPolicy value) { return value == GidPolicy::kAuto ? "auto" : "index"; }
const char* ToString(GpuDirect value) {
  switch (value) {
    case GpuDirect::kAuto:
      return "auto";
    case GpuDirect::kDmaBuf:
      return "dmabuf";
    case GpuDirect::kNvidiaPeermem:
      return "nvidia-peermem";
  }
  return "?";
}
const char* ToString(MemlockStrategy value) {
  switch (value) {
    case MemlockStrategy::kSysResourceScc:
      return "sys-resource-scc";
    case MemlockStrategy::kPrivileged:
      return "privileged";
    case MemlockStrategy::kCrioUlimits:
      return "crio-ulimits";
  }
  return "?";
}
const char* ToString(IommuPolicy value) {
  switch (value) {
    case IommuPolicy::kPassthrough:
      return "passthrough";
    case IommuPolicy::kAlreadyConfigured:
      return "already-configured";
    case IommuPolicy::kSkip:
      return "skip";
  }
  return "?";
}
const char* ToString(WorkloadMode value) { return value == WorkloadMode::kRdma ? "rdma" : "tcp"; }
const char* ToString(OnNoRdma value) { return value == OnNoRdma::kFail ? "fail" : "tcp"; }
const char* ToString(HealthCheckMode value) {
  switch (value) {
    case HealthCheckMode::kOff:
      return "off";
    case HealthCheckMode::kWarn:
      return "warn";
    case HealthCheckMode::kFail:
      return "fail";
  }
  return "?";
}
const char* ToString(HealthCheckScope value) {
  return value == HealthCheckScope::kLocal ? "local" : "job";
}

std::optional<int64_t> ParseByteSize(const std::string& text) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0) return std::nullopt;
  const std::string unit = text.substr(digits);
  int64_t multiplier = 1;
  if (unit.empty())
    multiplier = 1;
  else if (unit == "k")
    multiplier = 1000;
  else if (unit == "M")
    multiplier = 1000 * 1000;
  else if (unit == "G")
    multiplier = 1000LL * 1000 * 1000;
  else if (unit == "T")
    multiplier = 1000LL * 1000 * 1000 * 1000;
  else if (unit == "Ki")
    multiplier = 1LL << 10;
  else if (unit == "Mi")
    multiplier = 1LL << 20;
  else if (unit == "Gi")
    multiplier = 1LL << 30;
  else if (unit == "Ti")
    multiplier = 1LL << 40;
  else
    return std::nullopt;
  int64_t number = 0;
  for (size_t i = 0; i < digits; ++i) {
    if (number > (std::numeric_limits<int64_t>::max() - 9) / 10) return std::nullopt;
    number = number * 10 + (text[i] - '0');
  }
  if (number > std::numeric_limits<int64_t>::max() / multiplier) return std::nullopt;
  return number * multiplier;
}

namespace {

using nlohmann::json;

// Reads the document; knows where it is (JSON pointer) so errors can be located.
class ModelBuilder {
 public:
  ModelBuilder(const LoadedProfile& loaded, DiagnosticSink& sink) : loaded_(loaded), sink_(sink) {}

  /// `keep_after_cross_field_errors`: return the profile when only CheckProfile failed.
  std::optional<Profile> Build(bool keep_after_cross_field_errors = false);

 private:
  void Error(const std::string& pointer, const std::string& rule, const std::string& message,
             const std::string& fix) {
    ReportModelError(loaded_, sink_, pointer, rule, message, fix);
    ++errors_;
  }

  static const json* Child(const json& object, const char* key) {
    if (!object.is_object()) return nullptr;
    auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
  }
  static std::string String(const json& object, const char* key, const std::string& fallback = "") {
    const json* value = Child(object, key);
    return value && value->is_string() ? value->get<std::string>() : fallback;
  }
  static int64_t Integer(const json& object, const char* key, int64_t fallback) {
    const json* value = Child(object, key);
    return value && value->is_number_integer() ? value->get<int64_t>() : fallback;
  }
  static bool Boolean(const json& object, const char* key, bool fallback) {
    const json* value = Child(object, key);
    return value && value->is_boolean() ? value->get<bool>() : fallback;
  }
  static std::vector<std::string> Strings(const json& object, const char* key,
                                          std::vector<std::string> fallback = {}) {
    const json* value = Child(object, key);
    if (!value || !value->is_array()) return fallback;
    std::vector<std::string> out;
    for (const json& item : *value)
      if (item.is_string()) out.push_back(item.get<std::string>());
    return out;
  }
  // Scalars of a map become strings: extra_env allows integers and booleans for convenience.
  static std::string ScalarText(const json& value) {
    if (value.is_string()) return value.get<std::string>();
    if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
    if (value.is_number_integer()) return std::to_string(value.get<int64_t>());
    return value.dump();
  }
  static std::map<std::string, std::string> StringMap(const json& object, const char* key) {
    std::map<std::string, std::string> out;
    const json* value = Child(object, key);
    if (!value || !value->is_object()) return out;
    for (auto it = value->begin(); it != value->end(); ++it) out[it.key()] = ScalarText(it.value());
    return out;
  }

  void ReadCluster(const json& root, Profile& profile);
  void ReadNodeShape(const json& shape, Profile& profile);
  void ReadTopology(const json& topology, const std::string& pointer, Profile& profile);
  void ReadNetwork(const json& network, Profile& profile);
  void ReadNccl(const json& nccl, NcclSettings& out);
  void ReadSecurity(const json& security, Security& out);
  void ReadWorkload(const json& workload, Workload& out);
  void ReadHealthCheck(const json& check, HealthCheck& out);
  void ReadGitOps(const json& gitops, Platform platform, GitOps& out);

  const LoadedProfile& loaded_;
  DiagnosticSink& sink_;
  int errors_ = 0;
};

void ModelBuilder::ReadCluster(const json& root, Profile& profile) {
  const json empty = json::object();
  const json* cluster = Child(root, "cluster");
  const json& c = cluster ? *cluster : empty;
  profile.cluster_name = String(c, "name");
  const std::string platform = String(c, "platform", "openshift");
  profile.platform = platform == "oke"          ? Platform::kOke
                     : platform == "kubernetes" ? Platform::kKubernetes
                                                : Platform::kOpenShift;
  profile.namespaces = Strings(root, "namespaces");
}

void ModelBuilder::ReadTopology(const json& topology, const std::string& pointer,
                                Profile& profile) {
  NodeTopology& out = profile.node_shape.topology;
  const std::string preset = String(topology, "preset");
  const json* numa = Child(topology, "numa_nodes");
  if (!preset.empty() && numa) {
    Error(pointer + "/numa_nodes", "model.topology-preset-and-custom",
          "a topology has both a preset and numa_nodes", "remove either `preset` or `numa_nodes`");
    return;
  }
  if (!preset.empty()) {
    if (preset == "none") {
      out = NodeTopology{};
      out.preset = "none";
    } else if (auto found = TopologyPreset(preset)) {
      out = *found;
    } else {
      Error(pointer + "/preset", "model.topology-preset",
            "unknown topology preset '" + preset + "'",
            "use one of the presets listed in the schema");
      return;
    }
    out.pointer = pointer;
    return;
  }
  if (!numa) {
    out = NodeTopology{};
    out.preset = "none";
    out.pointer = pointer;
    return;
  }
  out = NodeTopology{};
  out.preset = "custom";
  out.pointer = pointer;
  out.cpu_vendor = profile.node_shape.cpu_vendor;
  const json* gpu = Child(topology, "gpu");
  const json* nic = Child(topology, "nic");
  if (!gpu || !nic) {
    Error(pointer, "model.topology-identity",
          "a custom topology needs `gpu` (pci_device, sm) and `nic` (pci_device, speed_mbps)",
          "add gpu: {pci_device: \"0x2330\", sm: 90} and nic: {pci_device: \"0x1021\", "
          "speed_mbps: 400000}");
    return;
  }
  out.gpu_pci_device = String(*gpu, "pci_device");
  out.gpu_sm = static_cast<int>(Integer(*gpu, "sm", 0));
  out.nic_pci_device = String(*nic, "pci_device");
  out.nic_speed_mbps = Integer(*nic, "speed_mbps", 0);
  for (const json& n : *numa) {
    NumaNode node;
    node.id = static_cast<int>(Integer(n, "id", 0));
    node.cpu_affinity = String(n, "cpu_affinity");
    if (const json* switches = Child(n, "pcie_switches")) {
      for (const json& s : *switches) {
        PcieSwitch sw;
        sw.bus_id = String(s, "bus_id");
        sw.gpu_bus_ids = Strings(s, "gpus");
        if (const json* nics = Child(s, "nics")) {
          for (const json& x : *nics) {
            sw.nics.push_back(TopologyNic{String(x, "bus_id"), Strings(x, "rdma_devices")});
          }
        }
        node.pcie_switches.push_back(std::move(sw));
      }
    }
    out.numa_nodes.push_back(std::move(node));
  }
  for (const std::string& problem : CheckTopology(out)) {
    Error(pointer + "/numa_nodes", "model.topology", problem,
          "give every GPU, NIC and RDMA device its own address or name");
  }
}

void ModelBuilder::ReadNodeShape(const json& shape, Profile& profile) {
  NodeShape& out = profile.node_shape;
  out.pointer = "/node_shape";
  out.name = String(shape, "name");
  out.gpus_per_node = static_cast<int>(Integer(shape, "gpus_per_node", 0));
  out.nics_per_node = static_cast<int>(Integer(shape, "nics_per_node", 0));
  out.cpu_vendor =
      String(shape, "cpu_vendor", "intel") == "amd" ? CpuVendor::kAmd : CpuVendor::kIntel;
  out.node_selector = StringMap(shape, "node_selector");
  if (const json* tolerations = Child(shape, "tolerations")) {
    int i = 0;
    for (const json& t : *tolerations) {
      Toleration tol;
      tol.key = String(t, "key");
      tol.operator_name = String(t, "operator", "Equal");
      tol.value = String(t, "value");
      tol.effect = String(t, "effect");
      tol.pointer = "/node_shape/tolerations/" + std::to_string(i++);
      if (tol.operator_name == "Exists" && !tol.value.empty()) {
        Error(tol.pointer + "/value", "model.toleration-exists-value",
              "a toleration with operator Exists cannot have a value",
              "remove `value` or use operator Equal");
      }
      out.tolerations.push_back(std::move(tol));
    }
  }
  out.topology.preset = "none";
  out.topology.pointer = "/node_shape/topology";
  if (const json* topology = Child(shape, "topology")) {
    ReadTopology(*topology, "/node_shape/topology", profile);
  }
}

void ModelBuilder::ReadNetwork(const json& network, Profile& profile) {
  Network& out = profile.network;
  out.fabric =
      String(network, "fabric", "roce-v2") == "infiniband" ? Fabric::kInfiniBand : Fabric::kRoceV2;
  if (const json* rails = Child(network, "rails")) {
    int i = 0;
    for (const json& r : *rails) {
      Rail rail;
      rail.pointer = "/network/rails/" + std::to_string(i++);
      rail.name = String(r, "name");
      rail.interface_name = String(r, "interface");
      rail.nad_name = String(r, "nad_name", rail.name + "-network");
      rail.resource_name = String(r, "resource_name");
      rail.rdma_device_hint = String(r, "rdma_device_hint");
      rail.attachments_per_pod = static_cast<int>(Integer(r, "attachments_per_pod", 1));
      rail.mtu_bytes = static_cast<int>(Integer(r, "mtu_bytes", 9000));
      rail.vlan = static_cast<int>(Integer(r, "vlan", 0));
      rail.spoof_check = Boolean(r, "spoof_check", false);
      rail.trust = Boolean(r, "trust", true);
      rail.cni_version = String(r, "cni_version", "1.0.0");
      const json empty = json::object();
      const json* ipam = Child(r, "ipam");
      const json& i_json = ipam ? *ipam : empty;
      rail.ipam.pointer = rail.pointer + "/ipam";
      rail.ipam.type = String(i_json, "type", "whereabouts") == "nv-ipam" ? IpamType::kNvIpam
                                                                          : IpamType::kWhereabouts;
      rail.ipam.range = String(i_json, "range");
      rail.ipam.gateway = String(i_json, "gateway");
      rail.ipam.routes = Strings(i_json, "routes");
      if (const json* pool = Child(i_json, "pool")) {
        NvIpamPool p;
        p.pointer = rail.ipam.pointer + "/pool";
        p.name = String(*pool, "name");
        p.namespace_name = String(*pool, "namespace", "network-operator");
        p.subnet = String(*pool, "subnet");
        p.per_node_block_size = static_cast<int>(Integer(*pool, "per_node_block_size", 0));
        p.gateway = String(*pool, "gateway");
        rail.ipam.pool = std::move(p);
      }
      out.rails.push_back(std::move(rail));
    }
  }
  if (const json* plugin = Child(network, "sriov_device_plugin")) {
    SriovDevicePlugin p;
    p.pointer = "/network/sriov_device_plugin";
    p.resource_prefix = String(*plugin, "resource_prefix", p.resource_prefix);
    p.resource_name = String(*plugin, "resource_name");
    p.vendor_ids = Strings(*plugin, "vendor_ids", p.vendor_ids);
    p.device_ids = Strings(*plugin, "device_ids");
    p.drivers = Strings(*plugin, "drivers", p.drivers);
    p.repository = String(*plugin, "repository", p.repository);
    p.image = String(*plugin, "image", p.image);
    p.version = String(*plugin, "version", p.version);
    out.sriov_device_plugin = std::move(p);
  }
  if (const json* ipam = Child(network, "nv_ipam")) {
    NvIpamController c;
    c.pointer = "/network/nv_ipam";
    c.repository = String(*ipam, "repository", c.repository);
    c.image = String(*ipam, "image", c.image);
    c.version = String(*ipam, "version", c.version);
    c.enable_webhook = Boolean(*ipam, "enable_webhook", false);
    out.nv_ipam = std::move(c);
  }
}

void ModelBuilder::ReadNccl(const json& nccl, NcclSettings& out) {
  out.gid_policy =
      String(nccl, "gid_policy", "auto") == "index" ? GidPolicy::kIndex : GidPolicy::kAuto;
  if (const json* index = Child(nccl, "gid_index"); index && index->is_number_integer())
    out.gid_index = index->get<int>();
  out.ib_tc = static_cast<int>(Integer(nccl, "ib_tc", 0));
  out.ib_sl = static_cast<int>(Integer(nccl, "ib_sl", 0));
  out.ib_timeout = static_cast<int>(Integer(nccl, "ib_timeout", 20));
  out.ib_retry_count = static_cast<int>(Integer(nccl, "ib_retry_count", 7));
  out.ib_qps_per_connection = static_cast<int>(Integer(nccl, "ib_qps_per_connection", 1));
  out.ib_split_data_on_qps = Boolean(nccl, "ib_split_data_on_qps", false);
  out.cross_nic = static_cast<int>(Integer(nccl, "cross_nic", 2));
  if (const json* level = Child(nccl, "gdr_level")) out.gdr_level = ScalarText(*level);
  const std::string gpudirect = String(nccl, "gpudirect", "auto");
  out.gpudirect = gpudirect == "dmabuf"           ? GpuDirect::kDmaBuf
                  : gpudirect == "nvidia-peermem" ? GpuDirect::kNvidiaPeermem
                                                  : GpuDirect::kAuto;
  if (const json* n = Child(nccl, "socket_nthreads"); n && n->is_number_integer())
    out.socket_nthreads = n->get<int>();
  out.socket_ifname = String(nccl, "socket_ifname");
  out.ib_hca = Strings(nccl, "ib_hca");
  out.debug = String(nccl, "debug");
  out.extra_env = StringMap(nccl, "extra_env");
}

void ModelBuilder::ReadSecurity(const json& security, Security& out) {
  const std::string strategy = String(security, "memlock_strategy", "sys-resource-scc");
  out.memlock_strategy = strategy == "privileged"     ? MemlockStrategy::kPrivileged
                         : strategy == "crio-ulimits" ? MemlockStrategy::kCrioUlimits
                                                      : MemlockStrategy::kSysResourceScc;
  out.service_account = String(security, "service_account", out.service_account);
  out.scc_name = String(security, "scc_name", out.scc_name);
  if (const json* uid = Child(security, "run_as_user"); uid && uid->is_number_integer())
    out.run_as_user = uid->get<int64_t>();
  out.host_ipc = Boolean(security, "host_ipc", false);
}

void ModelBuilder::ReadWorkload(const json& w, Workload& out) {
  out.name = String(w, "name");
  out.image = String(w, "image");
  out.replicas = static_cast<int>(Integer(w, "replicas", 1));
  out.gpus_per_pod = static_cast<int>(Integer(w, "gpus_per_pod", 1));
  out.command = Strings(w, "command");
  if (const json* shm = Child(w, "shm_size")) out.shm_size = ScalarText(*shm);
  if (auto bytes = ParseByteSize(out.shm_size)) {
    out.shm_size_bytes = *bytes;
  } else {
    Error("/workload/shm_size", "model.byte-size", "'" + out.shm_size + "' is not a byte size",
          "write an integer with an optional unit, e.g. 32Gi");
  }
  out.mode = String(w, "mode", "rdma") == "tcp" ? WorkloadMode::kTcp : WorkloadMode::kRdma;
  out.on_no_rdma = String(w, "on_no_rdma", "fail") == "tcp" ? OnNoRdma::kTcp : OnNoRdma::kFail;
  out.master_port = static_cast<int>(Integer(w, "master_port", 29500));
  out.service_name = String(w, "service_name", out.name + "-headless");
  if (const json* resources = Child(w, "resources")) {
    out.resource_requests = StringMap(*resources, "requests");
    out.resource_limits = StringMap(*resources, "limits");
  }
  out.env = StringMap(w, "env");
  out.termination_grace_period_seconds =
      static_cast<int>(Integer(w, "termination_grace_period_seconds", 30));
}

void ModelBuilder::ReadHealthCheck(const json& check, HealthCheck& out) {
  const std::string mode = String(check, "mode", "warn");
  out.mode = mode == "off"    ? HealthCheckMode::kOff
             : mode == "fail" ? HealthCheckMode::kFail
                              : HealthCheckMode::kWarn;
  out.scope =
      String(check, "scope", "local") == "job" ? HealthCheckScope::kJob : HealthCheckScope::kLocal;
  if (const json* bw = Child(check, "min_busbw_gbps"); bw && bw->is_number())
    out.min_busbw_gbps = bw->get<double>();
  for (auto [key, target] :
       {std::pair{"at_bytes", &out.at_bytes}, std::pair{"max_bytes", &out.max_bytes}}) {
    const json* value = Child(check, key);
    if (!value) continue;
    const std::string text = ScalarText(*value);
    if (auto bytes = ParseByteSize(text)) {
      *target = *bytes;
    } else {
      Error(std::string("/health_check/") + key, "model.byte-size",
            "'" + text + "' is not a byte size",
            "write an integer with an optional unit, e.g. 1Gi");
    }
  }
  out.transport = String(check, "transport", "any");
}

void ModelBuilder::ReadGitOps(const json& g, Platform platform, GitOps& out) {
  // OpenShift GitOps installs Argo CD in openshift-gitops; elsewhere the upstream default.
  const bool openshift = platform == Platform::kOpenShift;
  out.argocd_namespace =
      String(g, "argocd_namespace", openshift ? "openshift-gitops" : out.argocd_namespace);
  out.project = String(g, "project", out.project);
  out.repo_url = String(g, "repo_url");
  out.path = String(g, "path");
  out.revision = String(g, "revision", out.revision);
  out.destination_server = String(g, "destination_server", out.destination_server);
  out.destination_namespace = String(g, "destination_namespace");
  out.automated_sync = Boolean(g, "automated_sync", false);
}

std::optional<Profile> ModelBuilder::Build(bool keep_after_cross_field_errors) {
  const json& root = loaded_.document;
  const json empty = json::object();
  auto section = [&](const char* key) -> const json& {
    const json* value = Child(root, key);
    return value ? *value : empty;
  };
  Profile profile;
  profile.source_path = loaded_.path;
  ReadCluster(root, profile);
  ReadNodeShape(section("node_shape"), profile);
  ReadNetwork(section("network"), profile);
  ReadNccl(section("nccl"), profile.nccl);
  ReadSecurity(section("security"), profile.security);
  const json& iommu = section("iommu");
  const std::string policy = String(iommu, "policy", "already-configured");
  profile.iommu.policy = policy == "passthrough" ? IommuPolicy::kPassthrough
                         : policy == "skip"      ? IommuPolicy::kSkip
                                                 : IommuPolicy::kAlreadyConfigured;
  profile.iommu.machine_config_role = String(iommu, "machine_config_role", "worker");
  ReadWorkload(section("workload"), profile.workload);
  profile.wrapper.image = String(section("wrapper"), "image");
  profile.wrapper.rendezvous_port =
      static_cast<int>(Integer(section("wrapper"), "rendezvous_port", 29650));
  ReadHealthCheck(section("health_check"), profile.health_check);
  errors_ += ReadFabricHealth(section("fabric_health"), loaded_, sink_, profile.fabric_health);
  ReadGitOps(section("gitops"), profile.platform, profile.gitops);
  if (profile.gitops.destination_namespace.empty() && !profile.namespaces.empty())
    profile.gitops.destination_namespace = profile.namespaces.front();
  const int read_errors = errors_;
  errors_ += CheckProfile(profile, loaded_, sink_);
  if ((keep_after_cross_field_errors ? read_errors : errors_) > 0) return std::nullopt;
  return profile;
}

}  // namespace

std::optional<Profile> BuildProfile(const LoadedProfile& loaded, DiagnosticSink& sink) {
  return ModelBuilder(loaded, sink).Build();
}

std::optional<Profile> BuildProfileForLint(const LoadedProfile& loaded, DiagnosticSink& sink) {
  return ModelBuilder(loaded, sink).Build(/*keep_after_cross_field_errors=*/true);
}

}  // namespace hkim

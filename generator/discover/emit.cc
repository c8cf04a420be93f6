#include "discover/emit.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <regex>
#include <set>

#include "discover/address_plan.h"
#include "model/image_mirror.h"
#include "model/operator_catalog.h"
#include "model/operator_versions.h"
#include "model/topology.h"
#include "model/wrapper_image.h"
#include "support/untrusted_text.h"

namespace hkim::discover {
namespace {

constexpr char kTodo[] = "TODO: ";

// Longest comment line: provenance names an object and a field, a few hundred bytes at most.
constexpr std::size_t kMaxCommentBytes = 400;

// Node shapes with a built-in topology description (schema: topology.preset).
const std::set<std::string> kTopologyPresets = {"BM.GPU.H100.8", "BM.GPU.A100-v2.8", "BM.GPU4.8"};

class Writer {
 public:
  explicit Writer(YAML::Emitter& out) : o_(out) {}

  Writer& Key(const std::string& key) {
    o_ << YAML::Key;
    if (HasActiveCharacters(key)) o_ << YAML::DoubleQuoted << YAML::EscapeNonAscii;
    o_ << key << YAML::Value;
    return *this;
  }
  Writer& Str(const std::string& value, const std::string& comment = "") {
    Quoting(value);
    o_ << value;
    return Comment(comment);
  }
  Writer& Int(long long value, const std::string& comment = "") {
    o_ << value;
    return Comment(comment);
  }
  Writer& Bool(bool value, const std::string& comment = "") {
    o_ << YAML::TrueFalseBool << value;
    return Comment(comment);
  }
  // A comment names the objects and values a value came from, all export text: each goes
  // through the one sanitiser, so a name with a newline, a carriage return or an escape
  // sequence stays one visible comment line (and a long one is cut with its length).
  Writer& Comment(const std::string& comment) {
    if (!comment.empty()) o_ << YAML::Comment(UntrustedText(comment, kMaxCommentBytes));
    return *this;
  }
  /// Several comment lines, each sanitised as Comment does (the header).
  Writer& CommentLines(const std::vector<std::string>& lines) {
    std::string text;
    for (const std::string& line : lines) {
      text += (text.empty() ? "" : "\n") + UntrustedText(line, kMaxCommentBytes);
    }
    if (!text.empty()) o_ << YAML::Comment(text);
    return *this;
  }
  Writer& StrList(const std::vector<std::string>& values, const std::string& comment = "") {
    o_ << YAML::Flow << YAML::BeginSeq;
    for (const std::string& value : values) {
      Quoting(value);
      o_ << value;
    }
    o_ << YAML::EndSeq;
    return Comment(comment);
  }
  Writer& Map(const std::string& comment = "") {
    Comment(comment);
    o_ << YAML::BeginMap;
    return *this;
  }
  Writer& End() {
    o_ << YAML::EndMap;
    return *this;
  }
  YAML::Emitter& raw() { return o_; }

 private:
  /// A name from the export is a value of the draft too, not only a comment: one with a
  /// character a terminal or an editor acts on (a carriage return, ESC, DEL, a bidirectional
  /// override) is written double-quoted with every such character as an escape (yaml-cpp
  /// escapes C0 controls in double quotes, DEL and the others only as non-ASCII), so the draft
  /// holds none and reads back as that name. Others as NeedsTypeQuotes says.
  static bool HasActiveCharacters(const std::string& text) { return EscapeControls(text) != text; }
  void Quoting(const std::string& value) {
    if (HasActiveCharacters(value)) {
      o_ << YAML::DoubleQuoted << YAML::EscapeNonAscii;
    } else if (NeedsTypeQuotes(value)) {
      o_ << YAML::DoubleQuoted;
    }
  }

  YAML::Emitter& o_;
};

std::string From(const DiscoveredRail& rail, const std::string& field) {
  auto it = rail.from.find(field);
  return it == rail.from.end() ? "" : it->second;
}

std::string ShapeName(const NodeGroup& group) {
  if (!group.instance_type.empty()) return group.instance_type;
  if (!group.gpu_product.empty()) return group.gpu_product;
  return "gpu-nodes";
}

// The VF device id the shape's NIC implies (VfDeviceIdOf: an A100 shape's ConnectX-5 Ex has
// VFs 101a, not the 101e of H100's ConnectX-7), with the reason for the comment; nullopt for a
// shape without a built-in topology.
std::optional<std::pair<std::string, std::string>> ShapeVfDeviceId(const NodeGroup& group) {
  if (!kTopologyPresets.count(group.instance_type)) return std::nullopt;
  std::optional<NodeTopology> topology = TopologyPreset(group.instance_type);
  if (!topology) return std::nullopt;
  std::optional<std::string> vf = VfDeviceIdOf(topology->nic_pci_device);
  if (!vf) return std::nullopt;
  return std::make_pair(*vf, "no VF in the export; " + group.instance_type + " has NIC " +
                                 topology->nic_pci_device + ", whose VFs are " + *vf);
}

// nv-ipam hands each node a block; a node's pod takes one address per attachment, and the
// gateway takes one more when it falls inside a block (lint.nv-ipam-block-size).
int BlockSizeNeeded(const DiscoveredRail& rail, bool gateway) {
  return std::max(rail.attachments_per_pod, 1) + (gateway ? 1 : 0);
}

int NicsPerNode(const DiscoveredProfile& p) {
  int nics = 0;
  for (const DiscoveredRail& rail : p.rails) nics += rail.attachments_per_pod;
  return nics;
}

void EmitHeader(Writer& w, const DiscoveredProfile& p, const EmitOptions& options) {
  std::vector<std::string> lines = {
      "Drafted by `hkimgen discover` from a read-only kubectl export. Each value says which",
      "object and field it came from; `TODO` marks a safe default the export cannot determine.",
      "Review them, then: hkimgen validate THIS_FILE && hkimgen render THIS_FILE -d out/NAME",
      "GPU node group: " + p.group.Describe()};
  if (!p.pods_exported) {
    lines.push_back(
        "The export holds no Pods: another team's jobs on these nodes could not be seen (export "
        "pods too, then see node_shape.exclude_nodes)");
  }
  for (size_t i = 0; i < p.other_groups.size(); ++i) {
    lines.push_back(i < options.other_names.size()
                        ? "Other GPU node group, drafted as " + options.other_names[i] + ": " +
                              p.other_groups[i].Describe()
                        : "Other GPU node group, not in this profile: " +
                              p.other_groups[i].Describe());
  }
  if (!p.other_groups.empty() && options.other_names.empty()) {
    lines.push_back(
        "(one profile per group: `hkimgen discover --all-groups -d DIR` drafts each in a file of "
        "its own)");
  }
  w.CommentLines(lines);
}

void EmitNodeShape(Writer& w, const DiscoveredProfile& p) {
  const NodeGroup& g = p.group;
  w.Key("node_shape").Map();
  w.Key("name").Str(ShapeName(g), "the group's instance type or GPU product");
  w.Key("gpus_per_node").Int(g.gpus_per_node, g.nodes.front()->gpus_from.Text());
  w.Key("nics_per_node").Int(NicsPerNode(p), "RDMA functions a pod gets: the rails' attachments");
  if (!p.cpu_vendor.empty()) {
    w.Key("cpu_vendor").Str(p.cpu_vendor, p.cpu_vendor_from);
  } else {
    w.Key("cpu_vendor")
        .Str("intel", std::string(kTodo) +
                          "no NFD label feature.node.kubernetes.io/cpu-model."
                          "vendor_id; set amd or intel");
  }
  w.Key("node_selector").Map(p.selector_from);
  if (!p.selector_key.empty()) {
    w.Key(p.selector_key).Str(p.selector_value);
  } else {
    w.Key("nvidia.com/gpu.present")
        .Str("true", std::string(kTodo) + "no common label; label the nodes");
  }
  w.End();
  if (!p.excluded.empty()) {
    w.Key("exclude_nodes")
            .Comment("another team's nodes of the group, it seems (warnings discover.other-team)")
            .raw()
        << YAML::BeginSeq;
    for (const ExcludedNode& node : p.excluded) w.Str(node.host, node.why);
    w.raw() << YAML::EndSeq;
  }
  w.Key("tolerations").raw() << YAML::BeginSeq;
  std::vector<std::string> taints = p.taints;
  if (taints.empty()) taints.push_back("nvidia.com/gpu:");
  for (const std::string& taint : taints) {
    const auto colon = taint.rfind(':');
    w.Map().Key("key").Str(taint.substr(0, colon),
                           p.taints.empty() ? "no taint on the group; harmless if none is added"
                                            : "taint on every node of the group");
    w.Key("operator").Str("Exists");
    if (colon + 1 < taint.size()) w.Key("effect").Str(taint.substr(colon + 1));
    w.End();
  }
  w.raw() << YAML::EndSeq;
  w.Key("topology").Map();
  if (kTopologyPresets.count(g.instance_type)) {
    w.Key("preset").Str(g.instance_type, "built-in description of this shape");
  } else {
    w.Key("preset").Str("none", std::string(kTodo) +
                                    "no built-in topology for this shape; describe numa_nodes "
                                    "if NCCL misplaces GPUs and NICs");
  }
  w.End();
  w.End();
}

void EmitIpam(Writer& w, const DiscoveredRail& rail, const DraftedAddresses& drafted,
              bool openshift) {
  const std::string from = From(rail, "ipam");
  const std::string type = DraftIpamType(rail, openshift);
  w.Key("ipam").Map(from.empty() ? std::string(kTodo) + "no NAD for this rail; choose its addresses"
                                 : from);
  w.Key("type").Str(type);
  if (type == "whereabouts") {
    if (rail.range.empty()) {
      w.Key("range").Str(
          drafted.cidr,
          std::string(kTodo) + "a subnet of its own for every isolated rail; " + drafted.sized_for);
    } else {
      w.Key("range").Str(rail.range);
    }
    if (!rail.gateway.empty()) w.Key("gateway").Str(rail.gateway);
    if (!rail.routes.empty()) w.Key("routes").StrList(rail.routes);
  } else {
    const std::string pool_from = From(rail, "pool");
    w.Key("pool").Map(pool_from.empty()
                          ? std::string(kTodo) + "no IPPool in the export; " + drafted.sized_for
                          : pool_from);
    w.Key("name").Str(rail.pool_name.empty() ? "default" : rail.pool_name);
    w.Key("namespace").Str(rail.pool_namespace.empty() ? "network-operator" : rail.pool_namespace);
    w.Key("subnet").Str(pool_from.empty() ? drafted.cidr : rail.pool_subnet);
    const std::string gateway = pool_from.empty() ? drafted.gateway : rail.pool_gateway;
    const int needed =
        pool_from.empty() ? drafted.block_size : BlockSizeNeeded(rail, !gateway.empty());
    if (rail.pool_block_size >= needed) {
      w.Key("per_node_block_size").Int(rail.pool_block_size);
    } else if (rail.pool_block_size > 0) {
      w.Key("per_node_block_size")
          .Int(needed, "raised from the IPPool's " + std::to_string(rail.pool_block_size) + ": " +
                           std::to_string(rail.attachments_per_pod) +
                           " interfaces per node" + (gateway.empty() ? "" : " plus the gateway"));
    } else {
      w.Key("per_node_block_size").Int(needed);
    }
    if (!gateway.empty()) w.Key("gateway").Str(gateway);
    w.End();
  }
  w.End();
}

void EmitRail(Writer& w, const DiscoveredRail& rail, const DraftedAddresses& drafted,
              bool openshift) {
  w.Map();
  w.Key("name").Str(rail.name);
  if (!rail.interface_name.empty())
    w.Key("interface").Str(rail.interface_name, From(rail, "interface"));
  if (!rail.nad_name.empty()) w.Key("nad_name").Str(rail.nad_name, From(rail, "nad_name"));
  if (!rail.resource_name.empty()) {
    w.Key("resource_name").Str(rail.resource_name, From(rail, "resource_name"));
  } else {
    w.Key("resource_name")
        .Str((openshift ? "openshift.io/" : "nvidia.com/") + rail.name + "rdma",
             std::string(kTodo) + "the resourceName of this PF's SR-IOV policy");
  }
  w.Key("attachments_per_pod").Int(rail.attachments_per_pod, From(rail, "attachments_per_pod"));
  if (rail.mtu_bytes > 0) {
    w.Key("mtu_bytes").Int(rail.mtu_bytes, From(rail, "mtu_bytes"));
  } else {
    w.Key("mtu_bytes").Int(openshift ? 9000 : 4220, std::string(kTodo) + "the fabric's MTU");
  }
  if (!rail.cni_version.empty())
    w.Key("cni_version").Str(rail.cni_version, "from the NAD's config");
  EmitIpam(w, rail, drafted, openshift);
  w.End();
}

void EmitNetwork(Writer& w, const DiscoveredProfile& p,
                 const std::vector<DraftedAddresses>& drafted) {
  const bool openshift = p.platform == "openshift";
  w.Key("network").Map();
  w.Key("fabric").Str(p.fabric, p.fabric_from.empty() ? std::string(kTodo) +
                                                            "no SR-IOV node state; infiniband "
                                                            "if the rails are IB"
                                                      : p.fabric_from);
  if (openshift && !p.adoption.rdma_netns.empty())
    w.Key("rdma_netns").Str(p.adoption.rdma_netns, p.adoption.rdma_netns_from);
  if (!openshift && !p.rails.empty()) {
    const DiscoveredRail& rail = p.rails.front();
    const std::string resource =
        rail.resource_name.empty() ? "nvidia.com/sriov_rdma_vf" : rail.resource_name;
    const auto slash = resource.find('/');
    w.Key("sriov_device_plugin").Map("what the NVIDIA Network Operator's device plugin advertises");
    w.Key("resource_prefix").Str(resource.substr(0, slash));
    w.Key("resource_name").Str(resource.substr(slash + 1), From(rail, "resource_name"));
    if (rail.vf_device_ids.empty()) {
      if (auto shape = ShapeVfDeviceId(p.group)) {
        w.Key("device_ids").StrList({shape->first}, shape->second);
      } else {
        w.Key("device_ids")
            .StrList({"101e"}, std::string(kTodo) +
                                   "the VFs' PCI device id "
                                   "(101e ConnectX-6 Dx/7, 101a ConnectX-5)");
      }
    } else {
      w.Key("device_ids").StrList(rail.vf_device_ids, From(rail, "device_ids"));
    }
    w.End();
    w.Key("nv_ipam").raw() << YAML::Flow << YAML::BeginMap << YAML::EndMap;
  }
  w.Key("rails").Comment(p.rails_from).raw() << YAML::BeginSeq;
  for (size_t i = 0; i < p.rails.size(); ++i) EmitRail(w, p.rails[i], drafted[i], openshift);
  w.raw() << YAML::EndSeq;
  w.End();
}

/// What the export shows the cluster already has and the profile (which installs no operator)
/// does not: the render's closure check (plan/closure.h) needs them declared.
void EmitPreconditions(Writer& w, const DiscoveredProfile& p) {
  const bool openshift = p.platform == "openshift";
  struct Item {
    std::string kind, what, why, check;
  };
  std::vector<Item> items;
  const std::string& key = p.selector_key;
  bool provided = key.empty();
  for (const char* prefix : {"nvidia.com/gpu.", "feature.node.kubernetes.io/", "kubernetes.io/",
                             "node.kubernetes.io/instance-type", "topology.kubernetes.io/"})
    provided |= key.rfind(prefix, 0) == 0;
  provided |= openshift && key == "node-role.kubernetes.io/worker";
  if (!provided)
    items.push_back({"node-label", key, "the export's GPU nodes carry it",
                     std::string(openshift ? "oc" : "kubectl") + " get nodes -l " + key});
  if (!openshift && !p.rails.empty()) {
    // The OKE NADs hkimgen renders chain the SR-IOV and RDMA CNI (the RDMA CNI needs exclusive
    // RDMA netns mode). A NAD of the export whose config uses a plugin shows the cluster has it,
    // and is cited by name; without one, the reason is the bundle's own NADs, and the check is
    // all there is.
    const std::string on_node =
        std::string("kubectl debug node/NODE -it --image=") + kNodeDebugImage + " -- chroot /host ";
    auto used_by = [&](const std::string& plugin) {
      auto it = p.cni_used_by.find(plugin);
      return it == p.cni_used_by.end() ? std::string() : it->second;
    };
    for (const char* plugin : {"sriov", "rdma"}) {
      const std::string nad = used_by(plugin);
      items.push_back({"cni-plugin", plugin,
                       nad.empty() ? "the bundle's NADs chain it (no NAD of the export shows the "
                                     "cluster has it)"
                                   : nad + " of the export uses it",
                       on_node + "ls /opt/cni/bin/" + plugin});
    }
    const std::string rdma_nad = used_by("rdma");
    items.push_back({"rdma-netns", "exclusive",
                     rdma_nad.empty()
                         ? "the RDMA CNI the bundle's NADs chain needs it"
                         : "the RDMA CNI, which " + rdma_nad + " of the export chains, needs it",
                     on_node + "rdma system show"});
    items.push_back({"host-driver", "nvidia-peermem",
                     "the OKE GPU image's driver (check that nvidia_peermem is loaded)",
                     on_node + "lsmod | grep nvidia_peermem"});
  }
  if (items.empty()) return;
  w.Key("preconditions")
      .Comment(std::string(kTodo) + "what the cluster has and the bundle does not install; check each")
      .raw() << YAML::BeginSeq;
  for (const Item& item : items) {
    w.Map();
    w.Key("kind").Str(item.kind);
    w.Key("what").Str(item.what);
    w.Key("why").Str(item.why);
    w.Key("check").Str(item.check);
    w.End();
  }
  w.raw() << YAML::EndSeq;
}

// The IOMMU arguments the GPU nodes' pool boots with already: pass-through adopted (no
// MachineConfig, no reboot) when they are all there, else left to the user.
void EmitIommu(Writer& w, const DiscoveredProfile& p) {
  const Adoption& a = p.adoption;
  std::vector<std::string> needed = {"iommu=pt"};
  if (p.cpu_vendor != "amd") needed.push_back("intel_iommu=on");
  bool all = !a.kernel_args.empty();
  for (const std::string& arg : needed)
    all &= std::find(a.kernel_args.begin(), a.kernel_args.end(), arg) != a.kernel_args.end();
  w.Key("iommu").Map();
  if (!all) {
    w.Key("policy").Str("already-configured",
                        std::string(kTodo) +
                            (a.kernel_args.empty()
                                 ? "no MachineConfig of the GPU nodes' pool sets iommu=pt; "
                                 : "the pool boots with " + a.kernel_args_from + " only; ") +
                            "passthrough renders a MachineConfig that reboots the nodes");
    w.End();
    return;
  }
  w.Key("policy").Str("passthrough", "the pool boots with it already");
  if (!a.pool_role.empty()) {
    w.Key("machine_config_role").Str(a.pool_role, a.pool_from);
    w.Key("machine_config_pool").Str("existing", a.pool_from);
  }
  w.Key("already_set").StrList(a.kernel_args, a.kernel_args_from + ": the bundle renders no MachineConfig");
  w.End();
}

// OpenShift operators the export shows: preinstalled (the bundle installs no second one); the
// others managed. Nothing when the export holds no operator objects at all.
void EmitOperators(Writer& w, const DiscoveredProfile& p) {
  const Adoption& a = p.adoption;
  if (!a.operators_visible) return;
  w.Key("operators").Map("what the cluster runs already is preinstalled: the bundle adds no second one");
  if (!a.openshift_version.empty())
    w.Key("openshift_version").Str(a.openshift_version, a.openshift_version_from);
  // The operators an OpenShift profile gets without listing them, in the catalogue's order.
  for (const OperatorFacts& facts : OperatorCatalog()) {
    if (!facts.default_on_openshift) continue;
    const std::string& key = facts.key;
    const FoundOperator* found = nullptr;
    for (const FoundOperator& f : a.operators)
      if (f.key == key) found = &f;
    w.Key(key).Map();
    w.Key("install").Str(found ? "preinstalled" : "managed",
                         found ? found->from : "not in the export: the bundle installs it");
    // The running CSV's version pins an operator with a release line (the others follow the
    // OpenShift minor).
    if (found && facts.release.listed && !found->version.empty())
      w.Key("version").Str(found->version, found->from);
    if (&facts == &SriovNetworkOperatorFacts()) {
      bool covered = !p.rails.empty();
      std::string names;
      for (const DiscoveredRail& rail : p.rails) {
        auto it = a.policies.find(rail.resource_name);
        covered &= it != a.policies.end();
        if (it != a.policies.end()) names += (names.empty() ? "" : ", ") + it->second;
      }
      if (covered)
        w.Key("node_policies").Bool(false, "SriovNetworkNodePolicy " + names +
                                               " advertise the rails' resources: the bundle renders none");
    }
    w.End();
  }
  w.End();
}

void EmitRuntime(Writer& w, const DiscoveredProfile& p, const std::string& path) {
  const bool openshift = p.platform == "openshift";
  w.Key("nccl").Map(std::string(kTodo) +
                    "NCCL settings and thresholds are not in a cluster export; safe defaults");
  w.Key("gid_policy").Str("auto", "hkim-wrapper finds the RoCE v2 GID at every start");
  if (p.rails.size() > 1) w.Key("cross_nic").Int(0, "several rails: keep each ring on its rail");
  w.Key("gpudirect").Str("auto");
  w.Key("debug").Str("WARN");
  w.End();
  w.Key("security").Map();
  if (openshift) {
    w.Key("memlock_strategy")
        .Str("sys-resource-scc", "OpenShift: an SCC with IPC_LOCK + SYS_RESOURCE");
    w.Key("run_as_user").Int(0, "added capabilities only take effect for UID 0");
  } else {
    w.Key("memlock_strategy")
        .Str("crio-ulimits", std::string(kTodo) + "check the node pool sets CRI-O memlock=-1");
  }
  w.End();
  EmitIommu(w, p);
  w.Key("workload").Map();
  w.Key("name").Str("nccl-job");
  w.Key("image").Str("nvcr.io/nvidia/pytorch:24.05-py3",
                     std::string(kTodo) + "your training image, pinned");
  if (p.rails.empty()) {
    w.Key("mode").Str("tcp",
                      "no RDMA rail on the group's nodes (no SR-IOV node state, no RDMA "
                      "resource): NCCL over the pod network");
  }
  // One pod per node, up to the schema's maximum of one job (a larger group runs several).
  const size_t excluded = p.excluded.size();
  const long long nodes = static_cast<long long>(p.group.nodes.size() - excluded);
  const std::string less =
      excluded == 0 ? "" : " less the " + std::to_string(excluded) + " excluded";
  if (nodes <= kMaxDraftReplicas) {
    w.Key("replicas").Int(DraftReplicas(p), "one pod per node of the group" + less);
  } else {
    w.Key("replicas")
        .Int(DraftReplicas(p),
             std::string(kTodo) + "the group has " + std::to_string(p.group.nodes.size()) +
                 " nodes" + (excluded == 0 ? "" : " (" + std::to_string(nodes) + less + ")") +
                 "; one job runs at most " + std::to_string(kMaxDraftReplicas) + " pods");
  }
  w.Key("gpus_per_pod").Int(p.group.gpus_per_node, "every GPU of the node");
  w.Key("command").StrList({"sleep", "infinity"}, std::string(kTodo) + "the job's command");
  w.End();
  w.Key("wrapper").Map();
  w.Key("image").Str(DefaultWrapperImage(),
                     std::string(kTodo) + "pin your hkimgen release");
  w.End();
  w.Key("health_check").Map(std::string(kTodo) + "set min_busbw_gbps from a good run");
  w.Key("mode").Str("warn");
  w.Key("scope").Str("local");
  w.End();
  EmitPreconditions(w, p);
  EmitOperators(w, p);
  w.Key("gitops").Map();
  if (openshift) w.Key("argocd_namespace").Str("openshift-gitops", "OpenShift GitOps");
  w.Key("repo_url")
      .Str("https://git.example.com/platform/gpu-bundles.git",
           std::string(kTodo) + "the repository Argo CD reads");
  w.Key("path").Str(path);
  w.Key("revision").Str("main");
  w.End();
}

// `name` + `suffix`, cut to a DNS label's 63 characters (without a trailing '-').
std::string WithSuffix(const std::string& name, const std::string& suffix) {
  std::string joined = (name + suffix).substr(0, 63);
  while (!joined.empty() && joined.back() == '-') joined.pop_back();
  return joined;
}

}  // namespace

bool NeedsTypeQuotes(const std::string& value) {
  static const std::set<std::string> kWords = {
      "",      "~",     "null", "Null", "NULL", "true", "True", "TRUE", "false",
      "False", "FALSE", "yes",  "Yes",  "YES",  "no",   "No",   "NO",   "on",
      "On",    "ON",    "off",  "Off",  "OFF",  "y",    "Y",    "n",    "N"};
  if (kWords.count(value)) return true;
  static const std::regex kNumber(
      R"([-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9]*)?)([eE][-+]?[0-9]+)?|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))");
  return std::regex_match(value, kNumber);
}

std::string EmitProfile(const DiscoveredProfile& p, const EmitOptions& options) {
  YAML::Emitter out;
  Writer w(out);
  const std::string name =
      (options.cluster_name.empty() ? "my-cluster" : options.cluster_name) + options.group_suffix;
  EmitHeader(w, p, options);
  out << YAML::BeginMap;
  w.Key("cluster").Map();
  const std::string group = options.group_suffix.empty() ? "" : " and the group";
  w.Key("name").Str(name, options.cluster_name.empty()
                              ? std::string(kTodo) + "an export does not name the cluster (--name)"
                              : "--name" + group);
  w.Key("platform").Str(p.platform, p.platform_from);
  w.End();
  // One profile per group: the profiles of one cluster need namespaces of their own (their
  // workload objects would otherwise be one object that two Applications track).
  std::vector<std::string> spaces =
      p.namespaces.empty() ? std::vector<std::string>{"gpu-training"} : p.namespaces;
  for (std::string& space : spaces) space = WithSuffix(space, options.group_suffix);
  const std::string per_group =
      options.group_suffix.empty()
          ? ""
          : ", each with the group's name (one cluster's profiles need namespaces of their own)";
  w.Key("namespaces")
      .StrList(spaces, p.namespaces.empty()
                           ? std::string(kTodo) +
                                 "your project's namespace (discover --namespace NAME); never "
                                 "default or another team's" +
                                 per_group
                           : p.namespaces_from + per_group);
  EmitNodeShape(w, p);
  EmitNetwork(w, p, DraftAddresses(p));
  EmitRuntime(w, p, "out/" + name);
  out << YAML::EndMap;
  // The emitter's whole buffer (c_str() would end at a NUL byte).
  return std::string(out.c_str(), out.size()) + "\n";
}

}  // namespace hkim::discover

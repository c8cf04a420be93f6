// The synced cluster of simulated_cluster.h. Each object is written as the component that makes
// it on a real cluster would write it: Argo CD (tracking annotation), a chart (helm.sh/chart
// label), OLM (a CSV per Subscription), the SR-IOV config daemon (SriovNetworkNodeState), the
// device plugins (node capacity), the cluster's admins (preinstalled operators, pools, labels).

#include "cluster_check/simulated_cluster.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <set>

#include "discover/cluster_facts.h"
#include "model/operator_catalog.h"
#include "model/operator_versions.h"
#include "model/placement.h"
#include "render/render.h"
#include "render/rendered_json.h"

namespace hkim::cluster_check_test {
namespace {

using nlohmann::json;

constexpr char kTracking[] = "argocd.argoproj.io/tracking-id";

std::string Group(const std::string& api_version) {
  const auto slash = api_version.find('/');
  return slash == std::string::npos ? "" : api_version.substr(0, slash);
}

// Argo CD's annotation tracking: <app>:<group>/<kind>:<namespace>/<name>.
void Track(json& object, const std::string& app) {
  const json& meta = object["metadata"];
  object["metadata"]["annotations"][kTracking] =
      app + ":" + Group(object.value("apiVersion", "")) + "/" + object.value("kind", "") + ":" +
      meta.value("namespace", "") + "/" + meta.value("name", "");
}

json Meta(const std::string& name, const std::string& ns = "") {
  json meta = {{"name", name}};
  if (!ns.empty()) meta["namespace"] = ns;
  return meta;
}

json Object(const std::string& api_version, const std::string& kind, const std::string& name,
            const std::string& ns = "") {
  return {{"apiVersion", api_version}, {"kind", kind}, {"metadata", Meta(name, ns)}};
}

std::string WithoutV(const std::string& version) {
  return version.rfind('v', 0) == 0 ? version.substr(1) : version;
}

// The OpenShift minor the profile runs on ("4.20"; the release catalog's newest where unset).
std::string OpenShiftMinor(const Profile& p) {
  return p.operators && !p.operators->openshift_version.empty() ? p.operators->openshift_version
                                                                : "4.20";
}

// The CSV OLM installs for `package` of operator `key`: the GPU Operator's from the release
// catalog; Red Hat's per-minor CSVs with a build suffix, as their catalogs name them.
std::string CsvName(const Profile& p, const std::string& key, const OperatorCommon& op) {
  if (!op.starting_csv.empty()) return op.starting_csv;
  if (key == "gpu_operator" && p.operators && p.operators->gpu_operator)
    if (auto release = FindGpuOperatorRelease(p.operators->gpu_operator->version))
      return release->csv;
  if (auto csv = OpenShiftOperatorCsvFor(key, OpenShiftMinor(p))) return csv->csv + "-202601010000";
  std::string version = "v1.0.0";
  if (key == "kueue" && p.operators && p.operators->kueue) version = p.operators->kueue->version;
  return op.package + "." + version;
}

std::string ChartVersion(const Profile& p, const std::string& key) {
  if (!p.operators) return "1.0.0";
  const Operators& ops = *p.operators;
  if (key == "gpu_operator" && ops.gpu_operator) return ops.gpu_operator->version;
  if (key == "network_operator" && ops.network_operator)
    if (auto r = FindNetworkOperatorRelease(ops.network_operator->version)) return r->chart_version;
  if (key == "kueue" && ops.kueue) return WithoutV(ops.kueue->version);
  if (key == "volcano" && ops.volcano) return WithoutV(ops.volcano->version);
  return "1.0.0";
}

// The cluster-wide CR an operator acts on, as its installer (the bundle, a chart or an admin)
// makes it.
json SingletonObject(const SingletonCr& cr, const OperatorCommon& op, const std::string& fallback) {
  const bool cluster_scoped = cr.kind == "ClusterPolicy" || cr.kind == "NicClusterPolicy";
  return Object(cr.api_version, cr.kind, cr.name.empty() ? fallback : cr.name,
                cluster_scoped ? "" : op.namespace_name);
}

class Simulator {
 public:
  Simulator(const CheckedProfile& checked, const SimulationOptions& options)
      : p_(*checked.profile), plan_(*checked.plan), options_(options) {}

  json Run() {
    ApplyBundle();
    Preinstalled();
    Crds();
    Platform();
    Nodes();
    return {{"apiVersion", "v1"}, {"kind", "List"}, {"metadata", {{"resourceVersion", ""}}},
            {"items", items_}};
  }

 private:
  // Every rendered object, tracked by the Application that syncs its folder; what the bundle's
  // chart Applications and Subscriptions install.
  void ApplyBundle() {
    DiagnosticSink sink;
    auto templates = ParseEmbeddedTemplates(sink);
    ASSERT_TRUE(templates) << "templates";
    auto bundle = RenderBundle(plan_, *templates, sink);
    ASSERT_TRUE(bundle) << "the bundle does not render";
    std::vector<std::pair<std::string, json>> documents;  // file -> object
    for (const RenderedFile& file : bundle->files) {
      if (IsMarkdown(file.file_name) || file.file_name.ends_with("kustomization.yaml") ||
          file.file_name.ends_with(".hkimgen-bundle"))
        continue;
      std::string error;
      auto object = RenderedDocumentJson(file.content, &error);
      ASSERT_TRUE(object) << file.file_name << ": " << error;
      documents.emplace_back(file.file_name, std::move(*object));
    }
    // The layers' Applications (apps/<layer>.yaml) name the folder each syncs.
    std::map<std::string, std::string> app_of_folder;
    for (const auto& [file, object] : documents) {
      if (object.value("kind", "") != "Application") continue;
      const std::string path = object["spec"]["source"].value("path", "");
      if (!path.empty()) app_of_folder[path.substr(path.rfind('/') + 1)] =
                             object["metadata"].value("name", "");
    }
    for (auto& [file, object] : documents) {
      const std::string folder = file.find('/') == std::string::npos ? "" : file.substr(0, file.find('/'));
      if (folder == "apps") {
        Track(object, plan_.application.name);
      } else if (app_of_folder.count(folder)) {
        Track(object, app_of_folder[folder]);
      }  // application.yaml and bootstrap/ are applied by hand
      const std::string kind = object.value("kind", "");
      if (kind == "Application" && object["spec"]["source"].contains("chart")) ChartInstall(object);
      if (kind == "Subscription") OlmInstall(object);
      items_.push_back(object);
    }
  }

  // The CRDs the bundle's preconditions name and Kueue's, as their installers create them
  // (Kueue's serving the versions of the profile's release).
  void Crds() {
    std::set<std::string> groups;
    for (const Precondition& pre : plan_.preconditions)
      if (pre.kind == "crd") groups.insert(pre.what);
    const Operators ops = OperatorsOf(p_);
    for (const std::string& what : groups) {
      const std::string group = what.substr(0, what.find('/'));
      std::string kind = what.find('/') == std::string::npos ? "" : what.substr(what.find('/') + 1);
      if (kind.empty() || kind == "*") kind = "Thing";
      std::string plural = kind;
      std::transform(plural.begin(), plural.end(), plural.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      json crd = Object("apiextensions.k8s.io/v1", "CustomResourceDefinition", plural + "s." + group);
      crd["spec"] = {{"group", group}, {"names", {{"kind", kind}, {"plural", plural + "s"}}},
                     {"versions", {{{"name", "v1"}, {"served", true}, {"storage", true}}}}};
      items_.push_back(std::move(crd));
    }
    if (!ops.kueue) return;
    const auto release = FindKueueRelease(ops.kueue->version);
    if (!release) return;
    json versions = json::array();
    for (const std::string& v : release->served)
      versions.push_back({{"name", v}, {"served", true}, {"storage", v == release->storage}});
    for (const char* kind : {"ClusterQueue", "LocalQueue", "ResourceFlavor", "Topology"}) {
      std::string plural = kind;
      std::transform(plural.begin(), plural.end(), plural.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      json crd = Object("apiextensions.k8s.io/v1", "CustomResourceDefinition",
                        plural + "s.kueue.x-k8s.io");
      crd["spec"] = {{"group", "kueue.x-k8s.io"}, {"names", {{"kind", kind}, {"plural", plural + "s"}}},
                     {"versions", versions}};
      items_.push_back(std::move(crd));
    }
  }

  // What a chart Application's sync creates: the operator's Deployment and, for the GPU
  // Operator, its ClusterPolicy (the chart's default CR), labelled by the chart and tracked by
  // the Application.
  void ChartInstall(const json& app) {
    const json& source = app["spec"]["source"];
    const std::string chart = source.value("chart", ""), revision = source.value("targetRevision", "");
    const std::string ns = app["spec"]["destination"].value("namespace", "");
    const std::string name = app["metadata"].value("name", "");
    auto made = [&](json object) {
      object["metadata"]["labels"]["helm.sh/chart"] = chart + "-" + revision;
      object["metadata"]["labels"]["app.kubernetes.io/managed-by"] = "Helm";
      Track(object, name);
      items_.push_back(std::move(object));
    };
    made(Object("apps/v1", "Deployment", chart, ns));
    if (chart == "gpu-operator")
      made(Object("nvidia.com/v1", "ClusterPolicy", "cluster-policy"));
  }

  // OLM's answer to a Subscription: a CSV in its namespace (not tracked: OLM made it).
  void OlmInstall(const json& subscription) {
    const std::string package = subscription["spec"].value("name", "");
    const std::string ns = subscription["metadata"].value("namespace", "");
    const Operators ops = OperatorsOf(p_);
    for (const OperatorFacts& facts : OperatorCatalog()) {
      const OperatorCommon* op = OperatorByKey(ops, facts.key);
      if (op == nullptr || op->package != package) continue;
      json csv = Object("operators.coreos.com/v1alpha1", "ClusterServiceVersion",
                        CsvName(p_, facts.key, *op), ns);
      csv["status"] = {{"phase", "Succeeded"}};
      items_.push_back(std::move(csv));
    }
  }

  // Operators the profile leaves to the cluster, installed by its admins (OLM on OpenShift, Helm
  // elsewhere), with their cluster-wide CR.
  void Preinstalled() {
    if (!p_.operators) return;
    const Operators& ops = *p_.operators;
    for (const OperatorFacts& facts : OperatorCatalog()) {
      const OperatorCommon* op = OperatorByKey(ops, facts.key);
      if (op == nullptr || op->managed()) continue;
      const std::string& ns = op->namespace_name;
      if (p_.IsOpenShift() && !op->package.empty()) {
        json group = Object("operators.coreos.com/v1", "OperatorGroup", ns + "-operatorgroup", ns);
        items_.push_back(group);
        json sub = Object("operators.coreos.com/v1alpha1", "Subscription", op->package, ns);
        sub["spec"] = {{"name", op->package}, {"channel", op->channel}, {"source", op->source},
                       {"sourceNamespace", op->source_namespace}};
        items_.push_back(sub);
        json csv = Object("operators.coreos.com/v1alpha1", "ClusterServiceVersion",
                          CsvName(p_, facts.key, *op), ns);
        csv["status"] = {{"phase", "Succeeded"}};
        items_.push_back(csv);
      } else if (!op->chart.empty()) {
        json release = Object("v1", "Secret", "sh.helm.release.v1." + op->chart + ".v1", ns);
        release["type"] = "helm.sh/release.v1";
        release["metadata"]["labels"] = {{"owner", "helm"}, {"name", op->chart},
                                         {"status", "deployed"}, {"version", "1"}};
        items_.push_back(release);
        json deployment = Object("apps/v1", "Deployment", op->chart, ns);
        deployment["metadata"]["labels"] = {
            {"helm.sh/chart", op->chart + "-" + ChartVersion(p_, facts.key)},
            {"app.kubernetes.io/managed-by", "Helm"}};
        items_.push_back(deployment);
      }
      for (const SingletonCr& cr : facts.singletons)
        items_.push_back(SingletonObject(cr, *op, facts.key + "-instance"));
    }
  }

  // The platform's own objects the checks read: OpenShift's release, networks and pools.
  void Platform() {
    if (!p_.IsOpenShift()) return;
    json version = Object("config.openshift.io/v1", "ClusterVersion", "version");
    version["status"] = {{"desired", {{"version", OpenShiftMinor(p_) + ".8"}}}};
    items_.push_back(version);
    const json networks = {{"clusterNetwork", {{{"cidr", "10.128.0.0/14"}, {"hostPrefix", 23}}}},
                           {"serviceNetwork", {"172.30.0.0/16"}},
                           {"networkType", "OVNKubernetes"}};
    json network = Object("config.openshift.io/v1", "Network", "cluster");
    network["spec"] = networks;
    network["status"] = networks;
    items_.push_back(network);
    const std::string mc = "machineconfiguration.openshift.io/v1";
    for (const std::string role : {"worker", "master"}) {
      json pool = Object(mc, "MachineConfigPool", role);
      pool["spec"] = {{"machineConfigSelector",
                       {{"matchLabels", {{"machineconfiguration.openshift.io/role", role}}}}},
                      {"nodeSelector", {{"matchLabels", {{"node-role.kubernetes.io/" + role, ""}}}}}};
      items_.push_back(pool);
    }
    const std::string& role = p_.iommu.machine_config_role;
    if (role != "worker" && role != "master" && !p_.iommu.create_pool) {
      json pool = Object(mc, "MachineConfigPool", role);
      pool["spec"] = {
          {"machineConfigSelector",
           {{"matchExpressions",
             {{{"key", "machineconfiguration.openshift.io/role"}, {"operator", "In"},
               {"values", {"worker", role}}}}}}},
          {"nodeSelector", {{"matchLabels", {{"node-role.kubernetes.io/" + role, ""}}}}},
          {"maxUnavailable", 1}};
      items_.push_back(pool);
    }
    if (!p_.iommu.already_set.empty()) {
      json config = Object(mc, "MachineConfig", "99-" + role + "-kernel-arguments");
      config["metadata"]["labels"] = {{"machineconfiguration.openshift.io/role", role}};
      config["spec"] = {{"kernelArguments", p_.iommu.already_set}};
      items_.push_back(config);
    }
  }

  int NodeCount() const {
    if (options_.nodes > 0) return options_.nodes;
    if (!p_.node_shape.include_nodes.empty())
      return static_cast<int>(p_.node_shape.include_nodes.size());
    const int pods = (p_.workload.replicas + kPodsPerNode - 1) / kPodsPerNode;
    return pods + 1;  // a spare: one node marked failed or busy leaves room for every pod
  }

  // What one node advertises: the GPUs, and every extended resource a pod requests (the rails'
  // VFs through the device plugin the bundle or the cluster runs).
  json Capacity() const {
    std::map<std::string, long long> count = {{"nvidia.com/gpu", p_.node_shape.gpus_per_node}};
    if (p_.UsesRails())
      for (const Rail& rail : p_.network.rails)
        count[rail.resource_name] += rail.attachments_per_pod * kPodsPerNode;
    for (const auto& [name, quantity] : p_.workload.resource_requests) {
      if (name.find('/') == std::string::npos || name.starts_with("hugepages-")) continue;
      if (auto n = discover::ParseCount(quantity)) count[name] = std::max(count[name], *n * kPodsPerNode);
    }
    json capacity = {{"cpu", "192"}, {"memory", "2113389444Ki"}, {"pods", "250"}};
    for (const auto& [name, n] : count) capacity[name] = std::to_string(n);
    return capacity;
  }

  // The VFs the bundle's SR-IOV node policy gives a PF, else what the cluster's own gives (one
  // pod's attachments).
  int VfsOf(const Rail& rail) const {
    for (const PlannedObject& o : plan_.objects)
      if (o.kind == "SriovNetworkNodePolicy" && o.context.value("pf_name", "") == rail.interface_name)
        return o.context.value("num_vfs", 1);
    return rail.attachments_per_pod * kPodsPerNode;
  }

  json SriovState(const std::string& node) const {
    json interfaces = json::array();
    const std::string device = p_.node_shape.topology.nic_pci_device.empty()
                                   ? "1021" : p_.node_shape.topology.nic_pci_device;
    int pci = 0x0c;
    for (const Rail& rail : p_.network.rails) {
      if (rail.interface_name.empty()) continue;
      const int vfs = VfsOf(rail);
      json vf_list = json::array();
      for (int i = 0; i < vfs; ++i)
        vf_list.push_back({{"name", rail.interface_name + "v" + std::to_string(i)}, {"vfID", i},
                           {"deviceID", VfDeviceIdOf(device).value_or("101e")},
                           {"mtu", rail.mtu_bytes}});
      char address[16];
      std::snprintf(address, sizeof address, "0000:%02x:00.0", pci++);
      interfaces.push_back({{"name", rail.interface_name}, {"vendor", "15b3"}, {"deviceID", device},
                            {"driver", "mlx5_core"}, {"pciAddress", address},
                            {"linkType", p_.network.fabric == Fabric::kInfiniBand ? "IB" : "ETH"},
                            {"linkAdminState", "up"}, {"mtu", rail.mtu_bytes}, {"numVfs", vfs},
                            {"totalvfs", std::max(vfs, 8)}, {"Vfs", vf_list}});
    }
    json state = Object("sriovnetwork.openshift.io/v1", "SriovNetworkNodeState", node,
                        OperatorsOf(p_).sriov_network_operator
                            ? OperatorsOf(p_).sriov_network_operator->namespace_name
                            : "openshift-sriov-network-operator");
    state["status"] = {{"interfaces", interfaces}, {"syncStatus", "Succeeded"}};
    return state;
  }

  // The GPU nodes the profile picks, as their labels, taints and device plugins make them.
  void Nodes() {
    const int count = NodeCount();
    std::set<std::string> labels_needed;
    for (const Precondition& pre : plan_.preconditions)
      if (pre.kind == "node-label" && pre.what.find('*') == std::string::npos)
        labels_needed.insert(pre.what);
    const bool sriov_states = p_.IsOpenShift() && p_.UsesRails() &&
                              OperatorsOf(p_).sriov_network_operator.has_value();
    for (int i = 0; i < count; ++i) {
      char generated[16];
      std::snprintf(generated, sizeof generated, "gpu-%02d", i + 1);
      const std::string name = p_.node_shape.include_nodes.empty()
                                   ? std::string(generated) : p_.node_shape.include_nodes[i];
      json labels = {{"kubernetes.io/hostname", name}, {"kubernetes.io/os", "linux"},
                     {"nvidia.com/gpu.count", std::to_string(p_.node_shape.gpus_per_node)},
                     {"nvidia.com/gpu.present", "true"},
                     {"feature.node.kubernetes.io/cpu-model.vendor_id",
                      p_.node_shape.cpu_vendor == CpuVendor::kAmd ? "AMD" : "Intel"}};
      for (const auto& [key, value] : p_.node_shape.node_selector) labels[key] = value;
      for (const std::string& label : labels_needed)
        if (!labels.contains(label)) labels[label] = "true";
      if (p_.scheduling.kueue)
        for (const std::string& level : p_.scheduling.kueue->levels)
          labels[level] = level == "kubernetes.io/hostname" ? name : "domain-a";
      if (p_.IsOpenShift()) {
        labels["node.openshift.io/os_id"] = "rhcos";
        labels["node-role.kubernetes.io/worker"] = "";
        labels["node-role.kubernetes.io/" + p_.iommu.machine_config_role] = "";
      } else {
        labels["node.kubernetes.io/instance-type"] = p_.node_shape.name;
      }
      json taints = json::array();
      for (const Toleration& t : p_.node_shape.tolerations) {
        if (t.key.empty()) continue;
        taints.push_back({{"key", t.key},
                          {"value", t.operator_name == "Exists" ? "any" : t.value},
                          {"effect", t.effect.empty() ? "NoSchedule" : t.effect}});
      }
      json node = Object("v1", "Node", name);
      node["metadata"]["labels"] = labels;
      node["spec"] = json::object();
      if (!taints.empty()) node["spec"]["taints"] = taints;
      const json capacity = Capacity();
      node["status"] = {{"capacity", capacity}, {"allocatable", capacity},
                        {"addresses", {{{"type", "InternalIP"},
                                        {"address", "100.64.0." + std::to_string(10 + i)}}}},
                        {"nodeInfo", {{"osImage", p_.IsOpenShift() ? "Red Hat Enterprise Linux CoreOS 420"
                                                                   : "Oracle Linux Server 8.10"},
                                      {"kubeletVersion", "v1.33.5"}}}};
      items_.push_back(node);
      if (sriov_states) items_.push_back(SriovState(name));
    }
  }

  const Profile& p_;
  const BundlePlan& plan_;
  SimulationOptions options_;
  json items_ = json::array();
};

}  // namespace

nlohmann::json SimulateSyncedCluster(const CheckedProfile& checked,
                                     const SimulationOptions& options) {
  if (!checked.profile || !checked.plan) {
    ADD_FAILURE() << "the profile did not check";
    return {{"apiVersion", "v1"}, {"kind", "List"}, {"items", json::array()}};
  }
  return Simulator(checked, options).Run();
}

std::string TrackingApplication(const nlohmann::json& object) {
  const json pointer = object.value(json::json_pointer("/metadata/annotations"), json::object());
  const std::string id = pointer.is_object() ? pointer.value(kTracking, "") : "";
  return id.substr(0, id.find(':'));
}

}  // namespace hkim::cluster_check_test

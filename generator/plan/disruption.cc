// Plan stage, node disruption (plan/disruption.h): the table. Each row names its source; a
// NOTE in a source is an inference the row relies on.

#include "plan/disruption.h"

#include <string>
#include <utility>

#include "support/embedded_files.h"

namespace hkim {

const char* ToString(Disruption value) {
  switch (value) {
    case Disruption::kNone:
      return "none";
    case Disruption::kJobRestart:
      return "job restart";
    case Disruption::kVfReset:
      return "VF reset";
    case Disruption::kDriverRoll:
      return "driver roll";
    case Disruption::kDrain:
      return "drain";
    case Disruption::kReboot:
      return "drain and reboot";
  }
  return "?";
}

// A row's field path names, in a list, the element of that `name` (".../containers/vf-config/
// env/MTU": diff/sync_effects.cc reads it so). A row whose field the object's template never
// writes does not apply to it (plan/readme.cc, diff/sync_effects.cc): OKE's NicClusterPolicy has
// no ofedDriver, so it rolls no driver.
const std::vector<DisruptionRule>& DisruptionTable() {
  using D = Disruption;
  static const std::vector<DisruptionRule> table = {
      {"MachineConfig", "", "", D::kReboot, "",
       "the Machine Config Operator renders a new config for the pool, then cordons, drains and "
       "reboots each of its nodes",
       "every node of the MachineConfigPool its machineconfiguration.openshift.io/role label names",
       "the pool's maxUnavailable nodes at a time (1 unless the pool sets it)",
       "oc get machineconfigpool -w",
       "OpenShift docs, \"Machine Config Operator\" (a changed MachineConfig reboots the pool's "
       "nodes); BARCELONA-LIVE.md (\"Any new MachineConfig for the pool re-renders it\")"},
      {"MachineConfigPool", "", "", D::kReboot, "",
       "nodes its selector gains or loses move to another pool's config: each drains and reboots",
       "the nodes the pool's nodeSelector gains or loses",
       "the pool's maxUnavailable nodes at a time",
       "oc get machineconfigpool -w",
       "OpenShift docs, \"Machine Config Operator\" (custom pools)"},
      {"SriovNetworkNodePolicy", "", "", D::kDrain, "",
       "the SR-IOV config daemon cordons and drains each selected node to reconfigure its PFs and "
       "VFs (MTU, VF count, RDMA); a change a Mellanox NIC needs firmware for reboots it too",
       "the nodes of the policy's nodeSelector",
       "one node at a time per pool (SriovNetworkPoolConfig maxUnavailable, default 1)",
       "oc get sriovnetworknodestates -n openshift-sriov-network-operator -w",
       "BRINGUP-FACTS §2 (Red Hat, \"Configuring an SR-IOV network device\": applying a policy "
       "may drain or reboot nodes)"},
      {"SriovNetworkPoolConfig", "", "", D::kReboot, "",
       "the SR-IOV config daemon sets the RDMA subsystem's netns mode (rdmaMode) and drains and "
       "reboots each selected node; in exclusive mode pods whose NADs lack the rdma CNI lose RDMA",
       "the nodes of its nodeSelector",
       "its maxUnavailable nodes at a time",
       "oc get sriovnetworknodestates -n openshift-sriov-network-operator -w",
       "BRINGUP-FACTS §7 (Red Hat, \"Configuring an RDMA subsystem for SR-IOV\"); "
       "BARCELONA-LIVE.md (RDMA shared mode)"},
      // The VF agent's script (its template's header says what each run does): only a new VF
      // count resets VFs; any other change of its pod re-applies what differs.
      {"DaemonSet", "operators-oke/daemonset-vf-config.yaml.mustache",
       "spec/template/spec/containers/vf-config/env/VFS_PER_PF", D::kVfReset, "",
       "each node's VF agent restarts and sets the new VF count on every rail PF: it sets the "
       "VFs to 0, creates them again and restarts the SR-IOV device plugin; RDMA pods on the "
       "node lose their VFs (a node waiting for its reboot keeps none)",
       "every GPU node of its nodeSelector",
       "the DaemonSet's rolling update: one node at a time",
       "kubectl rollout status daemonset -n {ns} {name}",
       "BRINGUP-FACTS §4 (oci-hpc-oke vf-config: echo 0 > sriov_numvfs, oci-vf-config, "
       "--restart-sriov); templates/operators-oke/daemonset-vf-config.yaml.mustache"},
      {"DaemonSet", "operators-oke/daemonset-vf-config.yaml.mustache",
       "spec/template/spec/containers/vf-config/env/MTU", D::kNone, "",
       "each node's VF agent restarts and sets every rail PF's MTU to the new value (ip link set "
       "PF mtu), with or without VFs; it resets no VF and does not restart the SR-IOV device "
       "plugin: running pods keep their VFs",
       "every GPU node of its nodeSelector",
       "the DaemonSet's rolling update: one node at a time",
       "kubectl rollout status daemonset -n {ns} {name}",
       "templates/operators-oke/daemonset-vf-config.yaml.mustache (the PF loop)"},
      {"DaemonSet", "operators-oke/daemonset-vf-config.yaml.mustache", "spec/template", D::kNone,
       "",
       "each node's VF agent restarts and applies the same settings again: it changes only what "
       "differs on the node, resets no VF and does not restart the SR-IOV device plugin",
       "every GPU node of its nodeSelector",
       "the DaemonSet's rolling update: one node at a time",
       "kubectl rollout status daemonset -n {ns} {name}",
       "templates/operators-oke/daemonset-vf-config.yaml.mustache"},
      {"ClusterPolicy", "", "spec/driver", D::kDriverRoll, "spec/driver/enabled",
       "the GPU Operator's upgrade controller evicts the GPU pods of each node, then unloads and "
       "reloads the GPU driver there (kernel module type, RDMA/peermem, version)",
       "every GPU node",
       "driver.upgradePolicy: maxParallelUpgrades nodes at a time (1), at most maxUnavailable "
       "(25%)",
       "oc get pods -n nvidia-gpu-operator -l app=nvidia-driver-daemonset -w",
       "NVIDIA GPU Operator docs, \"GPU Driver Upgrades\" (upgradePolicy, pod eviction); "
       "BRINGUP-FACTS §3"},
      {"ClusterPolicy", "", "", D::kNone, "",
       "the GPU Operator rolls its operand pods (device plugin, toolkit, DCGM) node by node; "
       "running pods keep their GPUs",
       "every GPU node", "one node at a time", "oc get pods -n nvidia-gpu-operator -w",
       "NVIDIA GPU Operator docs (operand DaemonSets, daemonsets.rollingUpdate)"},
      {"Application", "operators-oke/application-gpu-operator.yaml.mustache",
       "spec/source/helm/valuesObject/driver", D::kDriverRoll,
       "spec/source/helm/valuesObject/driver/enabled",
       "the GPU Operator's upgrade controller evicts the GPU pods of each node, then unloads and "
       "reloads the GPU driver its driver DaemonSet runs there",
       "every GPU node",
       "the chart's driver.upgradePolicy (maxParallelUpgrades 1 by default)",
       "kubectl get pods -n gpu-operator -l app=nvidia-driver-daemonset -w",
       "NVIDIA GPU Operator docs, \"GPU Driver Upgrades\"; with driver.enabled false the chart "
       "deploys no driver DaemonSet (BRINGUP-FACTS §4: the host's driver)"},
      {"NicClusterPolicy", "", "spec/ofedDriver", D::kDriverRoll, "",
       "the Network Operator's DOCA driver container drains each node and reloads the NIC driver",
       "the nodes of its nodeAffinity",
       "ofedDriver.upgradePolicy.maxParallelUpgrades nodes at a time",
       "kubectl get pods -n network-operator -l nvidia.com/ofed-driver -w",
       "NVIDIA Network Operator docs, \"Upgrading the DOCA driver\" (upgradePolicy, drain)"},
      {"NicClusterPolicy", "", "", D::kNone, "",
       "the Network Operator redeploys its device plugin, Multus and IPAM pods; running pods "
       "keep their VFs, but the restarted device plugin does not count the VFs that sit in pods "
       "(sriov-network-device-plugin #565): such a node offers fewer until they are free and the "
       "plugin restarts",
       "the nodes of its nodeAffinity", "one node at a time",
       "kubectl get pods -n network-operator -w",
       "NVIDIA Network Operator docs (NicClusterPolicy components are DaemonSets); "
       "k8snetworkplumbingwg/sriov-network-device-plugin #565"},
      {"StatefulSet", "", "spec/template", D::kJobRestart, "",
       "every pod of the StatefulSet is replaced (rolling update, highest ordinal first): a "
       "running multi-node job fails at the first replaced pod and must restart from its last "
       "checkpoint",
       "the workload's GPU nodes", "one pod at a time",
       "kubectl rollout status statefulset -n {ns} {name}",
       "Kubernetes docs, StatefulSet update strategies (RollingUpdate)"},
      {"ConfigMap", "", "", D::kNone, "",
       "pods read it when they start (envFrom, volume): running pods keep the old values until "
       "they are replaced; where the workload's StatefulSet reads it (its NCCL environment and "
       "topology), the StatefulSet's hkimgen.io/config-checksum annotation changes with it and "
       "its entry says so (a job restart)",
       "", "", "",
       "Kubernetes docs, ConfigMaps (\"environment variables are not updated\"); plan/workload.cc"},
      {"NetworkAttachmentDefinition", "", "", D::kNone, "",
       "Multus reads it when a pod starts: running pods keep their interfaces (MTU, addresses); "
       "pods created afterwards get the new ones; the StatefulSet's hkimgen.io/fabric-checksum "
       "changes with it, which replaces its pods (a job restart) so that no job mixes the two",
       "", "", "",
       "Multus CNI docs (the delegate is read at pod sandbox creation); plan/fabric_check.cc"},
      {"IPPool", "", "", D::kNone, "",
       "nv-ipam allocates from it when a pod starts: running pods keep their old addresses until "
       "they are replaced; the StatefulSet's hkimgen.io/fabric-checksum changes with it, which "
       "replaces its pods (a job restart) so that no job mixes old and new subnets on a rail",
       "", "", "",
       "NVIDIA nv-ipam docs (the IPAM plugin allocates at pod sandbox creation); "
       "plan/fabric_check.cc"},
      {"Subscription", "", "spec", D::kNone, "",
       "OLM installs the operator release the channel points at; the new operator may roll its "
       "operands on every node (a GPU Operator whose ClusterPolicy pins no driver version rolls "
       "the driver); OLM never downgrades",
       "", "", "oc get csv -n {ns} -w",
       "OLM docs (\"Operator Lifecycle Manager does not support downgrades\"); NVIDIA GPU "
       "Operator on OpenShift (the CSV names the default driver image)"},
  };
  return table;
}

std::vector<const DisruptionRule*> DisruptionRulesOf(std::string_view kind,
                                                     std::string_view template_name) {
  std::vector<const DisruptionRule*> rules;
  for (const DisruptionRule& rule : DisruptionTable()) {
    if (rule.kind != kind) continue;
    if (!rule.template_name.empty() && rule.template_name != template_name) continue;
    rules.push_back(&rule);
  }
  return rules;
}

Disruption WorstDisruptionOf(std::string_view kind, std::string_view template_name) {
  Disruption worst = Disruption::kNone;
  for (const DisruptionRule* rule : DisruptionRulesOf(kind, template_name))
    if (rule->effect > worst) worst = rule->effect;
  return worst;
}

bool TemplateMayWrite(const DisruptionRule& rule, std::string_view template_name) {
  if (rule.field.empty()) return true;
  const std::string_view* text = FindEmbeddedFile("templates/" + std::string(template_name));
  if (!text) return false;
  const std::string_view last = rule.field.substr(rule.field.rfind('/') + 1);
  return text->find(last) != std::string_view::npos;
}

Disruption WorstWrittenDisruptionOf(std::string_view kind, std::string_view template_name) {
  Disruption worst = Disruption::kNone;
  for (const DisruptionRule* rule : DisruptionRulesOf(kind, template_name))
    if (rule->effect > worst && TemplateMayWrite(*rule, template_name)) worst = rule->effect;
  return worst;
}

std::string WatchCommand(const DisruptionRule& rule, const std::string& cli,
                         const std::string& namespace_name, const std::string& name) {
  std::string text(rule.watch);
  for (const auto& [key, value] : {std::pair<std::string, std::string>{"{cli}", cli},
                                   {"{ns}", namespace_name},
                                   {"{name}", name}}) {
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
      text.replace(at, key.size(), value);
  }
  return text;
}

}  // namespace hkim

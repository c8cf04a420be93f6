#include "discover/adopt.h"

#include <algorithm>
#include <set>

#include "discover/json_at.h"
#include "model/operator_catalog.h"

namespace hkim::discover {
namespace {

using nlohmann::json;

constexpr char kRoleLabel[] = "machineconfiguration.openshift.io/role";
constexpr char kNodeRole[] = "node-role.kubernetes.io/";

std::string Str(const json& value) { return value.is_string() ? value.get<std::string>() : ""; }

std::string Name(const ExportObject& o) {
  return o.kind + " " + (o.namespace_name.empty() ? "" : o.namespace_name + "/") + o.name;
}

void FindOperators(const ExportSet& exports, bool openshift, Adoption& out) {
  const Operators defaults = ReadOperators(json::object(), openshift, "cluster");
  for (const OperatorFacts& facts : OperatorCatalog()) {
    if (!(openshift ? facts.openshift : facts.kubernetes)) continue;
    const OperatorCommon* op = OperatorByKey(defaults, facts.key);
    for (const ExportObject& o : exports.objects) {
      std::string version;
      bool found = false;
      if (openshift && op && !op->package.empty() && o.kind == "ClusterServiceVersion" &&
          o.name.rfind(op->package + ".", 0) == 0) {
        found = true;
        version = o.name.substr(op->package.size() + 1);
      }
      for (const SingletonCr& cr : facts.singletons) found |= o.kind == cr.kind;
      if (o.kind == "ClusterServiceVersion") out.operators_visible = true;
      for (const SingletonCr& cr : facts.singletons) out.operators_visible |= o.kind == cr.kind;
      if (!found) continue;
      out.operators.push_back({facts.key, version, Name(o)});
      break;
    }
  }
}

void FindRdmaMode(const ExportSet& exports, Adoption& out) {
  for (const ExportObject& o : exports.objects) {
    if (o.kind == "SriovNetworkPoolConfig" && Str(At(*o.json, {"spec", "rdmaMode"})) == "exclusive") {
      out.rdma_netns = "already-exclusive";
      out.rdma_netns_from = Name(o) + " .spec.rdmaMode = exclusive";
      return;
    }
  }
  out.rdma_netns = "shared";
  out.rdma_netns_from =
      "no SriovNetworkPoolConfig sets exclusive mode: the kernel's shared default (an export "
      "without SriovNetworkPoolConfigs cannot tell; check with rdma system show on a node)";
}

/// The GPU nodes' custom role (node-role.kubernetes.io/<role> on every node of the group, not
/// worker or master) with a MachineConfigPool that takes it, and the IOMMU arguments the
/// MachineConfigs of the pool's roles set.
void FindKernelArgs(const ExportSet& exports, const DiscoveredProfile& p, Adoption& out) {
  std::set<std::string> roles;
  bool first = true;
  for (const NodeFacts* node : p.group.nodes) {
    std::set<std::string> mine;
    for (const auto& [key, value] : node->labels) {
      (void)value;
      if (key.rfind(kNodeRole, 0) == 0) mine.insert(key.substr(sizeof(kNodeRole) - 1));
    }
    if (first) roles = mine;
    std::set<std::string> both;
    std::set_intersection(roles.begin(), roles.end(), mine.begin(), mine.end(),
                          std::inserter(both, both.begin()));
    roles = both;
    first = false;
  }
  std::set<std::string> pool_roles = {"worker"};
  for (const ExportObject& o : exports.objects) {
    if (o.kind != "MachineConfigPool" || o.name == "worker" || o.name == "master" || !roles.count(o.name))
      continue;
    out.pool_role = o.name;
    out.pool_from = Name(o);
    pool_roles.insert(o.name);
    const json& expressions = At(*o.json, {"spec", "machineConfigSelector", "matchExpressions"});
    if (expressions.is_array())
      for (const json& e : expressions)
        if (Str(At(e, {"key"})) == kRoleLabel && At(e, {"values"}).is_array())
          for (const json& v : At(e, {"values"})) pool_roles.insert(Str(v));
  }
  for (const ExportObject& o : exports.objects) {
    if (o.kind != "MachineConfig" || !pool_roles.count(Str(At(*o.json, {"metadata", "labels", kRoleLabel}))))
      continue;
    const json& args = At(*o.json, {"spec", "kernelArguments"});
    if (!args.is_array()) continue;
    for (const json& a : args) {
      const std::string arg = Str(a);
      if (arg != "iommu=pt" && arg != "intel_iommu=on") continue;
      if (std::find(out.kernel_args.begin(), out.kernel_args.end(), arg) != out.kernel_args.end()) continue;
      out.kernel_args.push_back(arg);
      out.kernel_args_from += (out.kernel_args_from.empty() ? "" : ", ") + arg + " from MachineConfig " + o.name;
    }
  }
  std::sort(out.kernel_args.begin(), out.kernel_args.end());
}

}  // namespace

Adoption InferAdoption(const ExportSet& exports, const DiscoveredProfile& p) {
  Adoption out;
  const bool openshift = p.platform == "openshift";
  FindOperators(exports, openshift, out);
  if (!openshift) return out;
  for (const ExportObject& o : exports.objects) {
    if (o.kind == "ClusterVersion") {
      const std::string version = Str(At(*o.json, {"status", "desired", "version"}));
      const auto dot = version.find('.', version.find('.') + 1);
      if (!version.empty()) {
        out.openshift_version = version.substr(0, dot);
        out.openshift_version_from = Name(o) + " .status.desired.version = " + version;
      }
    }
    if (o.kind == "SriovNetworkNodePolicy") {
      const std::string resource = Str(At(*o.json, {"spec", "resourceName"}));
      for (const DiscoveredRail& rail : p.rails)
        if (!resource.empty() && rail.resource_name == "openshift.io/" + resource)
          out.policies[rail.resource_name] = o.name;
    }
  }
  FindRdmaMode(exports, out);
  FindKernelArgs(exports, p, out);
  return out;
}

}  // namespace hkim::discover

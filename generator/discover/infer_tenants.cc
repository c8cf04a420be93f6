// Another team's nodes in a GPU node group: what the export shows of who uses or owns a node
// (pods, taints, owner labels, names). The draft leaves such nodes out rather than place its
// replicas on them, and says so in one warning per reason.

#include <algorithm>
#include <map>
#include <set>

#include "discover/infer.h"
#include "discover/tenants.h"

namespace hkim::discover {
namespace {

constexpr size_t kNamed = 4;  // nodes a warning names; the rest are counted

// Label and taint keys whose value says whom a node is for ("dedicated=team-b",
// "example.com/team=vision").
bool OwnerKey(const std::string& key) {
  const std::string last = key.substr(key.rfind('/') + 1);
  static const std::set<std::string> kOwner = {"team",     "tenant",  "owner",       "dedicated",
                                               "reserved", "project", "reserved-for"};
  return kOwner.count(last) > 0;
}

bool Repelling(const NodeTaint& taint) {
  return (taint.effect == "NoSchedule" || taint.effect == "NoExecute") &&
         !TransientTaint(taint.key);
}

std::string NodeList(const std::vector<const NodeFacts*>& nodes) {
  std::string text;
  for (size_t i = 0; i < nodes.size() && i < kNamed; ++i) text += (i ? ", " : "") + nodes[i]->name;
  if (nodes.size() > kNamed) text += " and " + std::to_string(nodes.size() - kNamed) + " more";
  return text;
}

// One reason, the nodes it names (in the group's order) and what to do if they are the user's.
struct Finding {
  std::vector<const NodeFacts*> nodes;
  std::string fix;
};

class OtherTeams {
 public:
  OtherTeams(const ClusterFacts& facts, const std::vector<std::string>& namespaces,
             DiscoveredProfile& profile)
      : facts_(facts), own_(namespaces.begin(), namespaces.end()), p_(profile) {}

  void Find(DiagnosticSink& sink) {
    Pods(sink);
    Taints();
    OwnerMarks();
    Names();
    Report(sink);
  }

 private:
  void Add(const std::string& why, const NodeFacts* node, const std::string& fix) {
    Finding& finding = found_[why];
    finding.nodes.push_back(node);
    finding.fix = fix;
  }

  // GPU or RDMA pods of a namespace that is neither the workload's nor the platform's. A
  // namespace on most of the group is the cluster's main tenant (perhaps the user's own jobs
  // under another name): its nodes stay, with a warning.
  void Pods(DiagnosticSink& sink) {
    std::map<std::string, const NodeFacts*> by_name;
    for (const NodeFacts* node : p_.group.nodes) by_name[node->name] = node;
    std::map<std::string, std::vector<const NodeFacts*>> nodes_of;  // namespace -> nodes
    for (const PodFacts& pod : facts_.gpu_pods) {
      auto node = by_name.find(pod.node);
      if (node == by_name.end() || own_.count(pod.namespace_name) ||
          PlatformNamespace(pod.namespace_name))
        continue;
      std::vector<const NodeFacts*>& nodes = nodes_of[pod.namespace_name];
      if (nodes.empty() || nodes.back() != node->second) nodes.push_back(node->second);
    }
    for (auto& [space, nodes] : nodes_of) {
      std::sort(nodes.begin(), nodes.end(),
                [](const NodeFacts* a, const NodeFacts* b) { return a->name < b->name; });
      nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
      const size_t group = p_.group.nodes.size();
      if (nodes.size() * 2 > group) {
        sink.Report(Diagnostic{
            Severity::kWarning, nodes.front()->location, "", "discover.other-team",
            "namespace " + space + " runs GPU or RDMA pods on " + std::to_string(nodes.size()) +
                " of the group's " + std::to_string(group) + " nodes (" + NodeList(nodes) +
                "); they stay in the draft, which would share them",
            "if " + space + " is your workload's, pass --namespace " + space +
                "; if it is another team's, agree on which nodes are whose and list theirs in "
                "node_shape.exclude_nodes"});
        continue;
      }
      for (const NodeFacts* node : nodes)
        Add("GPU or RDMA pods of namespace " + space + " run there, not the workload's", node,
            "if " + space + " is your workload's, pass --namespace " + space +
                "; otherwise leave the nodes to it");
    }
  }

  // A taint most of the group lacks and the draft does not tolerate: the nodes are set aside
  // for someone else (the pods could not run there anyway).
  void Taints() {
    std::map<std::string, std::vector<const NodeFacts*>> carriers;  // "key=value:effect"
    for (const NodeFacts* node : p_.group.nodes) {
      std::set<std::string> mine;
      for (const NodeTaint& taint : node->taints) {
        if (!Repelling(taint) || OwnerKey(taint.key)) continue;
        mine.insert(taint.key + (taint.value.empty() ? "" : "=" + taint.value) + ":" +
                    taint.effect);
      }
      for (const std::string& taint : mine) carriers[taint].push_back(node);
    }
    for (const auto& [taint, nodes] : carriers) {
      if (nodes.size() * 2 >= p_.group.nodes.size()) continue;
      for (const NodeFacts* node : nodes)
        Add("tainted " + taint + ", which most nodes of the group lack", node,
            "if the nodes are yours, tolerate the taint in node_shape.tolerations and remove "
            "them from node_shape.exclude_nodes");
    }
  }

  // Owner marks: a label or taint keyed team/tenant/owner/... whose value is not most nodes'
  // (a node without the mark counts as the value "").
  void OwnerMarks() {
    std::map<std::string, std::map<std::string, std::vector<const NodeFacts*>>> values;
    std::set<std::string> keys;
    for (const NodeFacts* node : p_.group.nodes) {
      for (const auto& [key, value] : node->labels)
        if (OwnerKey(key)) keys.insert("label " + key);
      for (const NodeTaint& taint : node->taints)
        if (OwnerKey(taint.key) && Repelling(taint)) keys.insert("taint " + taint.key);
    }
    for (const std::string& key : keys) {
      const bool label = key.starts_with("label ");
      const std::string name = key.substr(6);  // after "label " or "taint "
      for (const NodeFacts* node : p_.group.nodes) {
        std::string value;
        if (label) {
          auto it = node->labels.find(name);
          if (it != node->labels.end()) value = it->second;
        } else {
          for (const NodeTaint& taint : node->taints)
            if (taint.key == name && Repelling(taint))
              value = taint.value.empty() ? "*" : taint.value;
        }
        values[key][value].push_back(node);
      }
    }
    for (const auto& [key, by_value] : values) {
      std::string majority;
      bool found = false;
      for (const auto& [value, nodes] : by_value) {
        if (nodes.size() * 2 > p_.group.nodes.size()) {
          majority = value;
          found = true;
        }
      }
      for (const auto& [value, nodes] : by_value) {
        // Without a majority every marked node is someone's; with one, the others are.
        if (value.empty() || (found && value == majority)) continue;
        const std::string shown = key.substr(6) + (value == "*" ? "" : "=" + value);
        for (const NodeFacts* node : nodes)
          Add(std::string(key.starts_with("label ") ? "labelled " : "tainted ") + shown +
                  ", unlike most nodes of the group",
              node,
              "if the nodes are yours, remove them from node_shape.exclude_nodes" +
                  std::string(key.starts_with("taint ") ? " and tolerate the taint" : ""));
      }
    }
  }

  // A name whose last word is not most nodes' ("...-yunshi" among "...-nairr") often says
  // whose the node is.
  void Names() {
    const std::string majority = MajoritySuffix(p_.group.nodes);
    if (majority.empty()) return;
    for (const NodeFacts* node : p_.group.nodes) {
      const std::string suffix = NameSuffix(node->name);
      if (suffix.empty() || suffix == majority) continue;
      Add("named ...-" + suffix + ", unlike most nodes of the group (...-" + majority + ")", node,
          "if the nodes are yours, remove them from node_shape.exclude_nodes");
    }
  }

  void Report(DiagnosticSink& sink) {
    std::set<const NodeFacts*> out;
    for (const auto& [why, finding] : found_)
      out.insert(finding.nodes.begin(), finding.nodes.end());
    const bool all = out.size() == p_.group.nodes.size();
    for (const auto& [why, finding] : found_) {
      std::vector<const NodeFacts*> nodes = finding.nodes;
      std::sort(nodes.begin(), nodes.end(),
                [](const NodeFacts* a, const NodeFacts* b) { return a->name < b->name; });
      nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
      const std::string subject = (nodes.size() == 1 ? "node " : "nodes ") + NodeList(nodes) +
                                  " (another team's, it seems): " + why;
      sink.Report(Diagnostic{
          Severity::kWarning, nodes.front()->location, "", "discover.other-team",
          all ? subject + "; they stay in the draft: every node of the group looks like this"
              : subject + ": left out of the draft (node_shape.exclude_nodes)",
          all ? "check whose nodes these are; list another team's in node_shape.exclude_nodes"
              : finding.fix});
    }
    if (all) return;
    std::map<std::string, std::string> why_of;  // host -> first reason
    for (const auto& [why, finding] : found_)
      for (const NodeFacts* node : finding.nodes) why_of.emplace(HostOf(*node), why);
    for (const auto& [host, why] : why_of) p_.excluded.push_back({host, why});
  }

  const ClusterFacts& facts_;
  std::set<std::string> own_;
  DiscoveredProfile& p_;
  std::map<std::string, Finding> found_;  // reason -> nodes (sorted by reason: stable output)
};

}  // namespace

void InferOtherTeams(const ClusterFacts& facts, const std::vector<std::string>& namespaces,
                     DiscoveredProfile& profile, DiagnosticSink& sink) {
  OtherTeams(facts, namespaces, profile).Find(sink);
}

}  // namespace hkim::discover

#pragma once

// Internal to cluster_check: findings about many nodes folded into one diagnostic (a 2,000-node
// cluster whose every node lacks one PF gets one error naming the first nodes and the count).

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "cluster_check/cluster_check.h"

namespace hkim::cluster_check {

class Findings {
 public:
  Findings(const LoadedProfile& merged, DiagnosticSink& sink) : merged_(merged), sink_(sink) {}

  /// One finding about `object` ("Node/a (export.json:12:5)"); the same rule, pointer and
  /// message about other objects fold into it. `detail` is kept from the first object only.
  void Add(Severity severity, const std::string& rule, const std::string& pointer,
           const std::string& object, const std::string& message, const std::string& fix,
           const std::string& detail = "");

  /// Reports everything, in the order first added.
  void Flush();

 private:
  struct Entry {
    Severity severity;
    std::string rule, pointer, message, fix, detail;
    std::vector<std::string> objects;
  };
  const LoadedProfile& merged_;
  DiagnosticSink& sink_;
  std::vector<Entry> entries_;
  std::map<std::tuple<std::string, std::string, std::string>, size_t> index_;
};

/// "Node/a (export.json:12:5)": how a message names an object of the export.
std::string Named(const std::string& kind, const std::string& name, const SourceLocation& at);

/// Checks of preconditions.cc: the pool and labels, preinstalled operators, the OpenShift
/// version, and objects the bundle would take over or address ranges it would overlap.
void CheckPreconditions(const Profile& profile, const ClusterExport& cluster,
                        const std::vector<const discover::NodeFacts*>& picked, Findings& findings);
void CheckTakeover(const Profile& profile, const ClusterExport& cluster, Findings& findings);

}  // namespace hkim::cluster_check

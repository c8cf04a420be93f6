#pragma once

// Plan stage, node disruption: the one table of what applying a change to an object does to the
// nodes and to a running job (drain, reboot, driver roll, VF reset, job restart), with the source
// of each fact. Rows match an object by kind and, where one kind is made by several templates,
// by template; a row with a field matches only a change below that field. Every stage asks this
// table: the layers (which objects sync in the nodes Application, plan/layers.cc), the bundle's
// README ("What a sync does to your nodes and jobs", plan/readme.cc) and `hkimgen diff`
// (diff/bundle_diff.cc), so an object another stage adds is classified by its kind.

#include <string>
#include <string_view>
#include <vector>

namespace hkim {

/// What a sync of a change does, from harmless to the most disruptive.
enum class Disruption {
  kNone,        ///< nothing running is touched (a note may still say what happens)
  kJobRestart,  ///< the workload's pods are replaced: a running multi-node job fails
  kVfReset,     ///< a node's VFs are destroyed and created again: its RDMA pods fail
  kDriverRoll,  ///< GPU or NIC driver unloaded and reloaded per node, GPU pods evicted first
  kDrain,       ///< nodes are cordoned and drained one at a time (may reboot)
  kReboot,      ///< nodes are drained and rebooted
};

/// "none", "job restart", "VF reset", "driver roll", "drain", "drain and reboot".
const char* ToString(Disruption value);

/// True for what touches nodes (VF reset, driver roll, drain, reboot): such objects sync in the
/// nodes Application.
inline bool TouchesNodes(Disruption value) { return value >= Disruption::kVfReset; }

/// One row of the table.
struct DisruptionRule {
  std::string_view kind;           ///< object kind
  std::string_view template_name;  ///< "" = every template of the kind
  /// Slash-separated path in the object ("spec/driver") below which a change has `effect`;
  /// "" = any change. A kind's field rows come before its catch-all row.
  std::string_view field;
  Disruption effect;
  /// Path of a boolean that, false in the old and the new object, makes the change inert
  /// ("spec/source/helm/valuesObject/driver/enabled": no driver DaemonSet to roll); "" = none.
  std::string_view inert_unless;
  std::string_view what;    ///< what a sync of such a change does, one sentence
  std::string_view nodes;   ///< on which nodes
  std::string_view pace;    ///< how many at a time
  std::string_view watch;   ///< the command to watch it ("{cli}" = oc or kubectl)
  std::string_view source;  ///< where the fact comes from
};

/// Every row, most specific first within a kind.
const std::vector<DisruptionRule>& DisruptionTable();

/// The rows of an object of `kind` rendered from `template_name` (path under templates/), in
/// table order; empty when a change to it touches nothing running.
std::vector<const DisruptionRule*> DisruptionRulesOf(std::string_view kind,
                                                     std::string_view template_name);

/// The most disruptive effect any change of such an object can have: what decides its layer and
/// whether its Application may sync itself.
Disruption WorstDisruptionOf(std::string_view kind, std::string_view template_name);

/// Whether `template_name` can write the rule's field: the field's last part occurs in the
/// template's text (OKE's NicClusterPolicy template never writes ofedDriver, so it rolls no
/// driver). A rule without a field applies to any change.
bool TemplateMayWrite(const DisruptionRule& rule, std::string_view template_name);

/// The most disruptive effect a change of such an object can have through the fields its
/// template writes: what the README and `render --tree` say a change does.
Disruption WorstWrittenDisruptionOf(std::string_view kind, std::string_view template_name);

/// `watch` with "{cli}", "{ns}" and "{name}" replaced by `cli` (oc or kubectl) and the object's
/// namespace and name.
std::string WatchCommand(const DisruptionRule& rule, const std::string& cli,
                         const std::string& namespace_name, const std::string& name);

}  // namespace hkim

// Diff stage, `hkimgen diff` (diff/sync_effects.h). Which change does what is the table's
// (plan/disruption.h); this file only finds which of a kind's rows a change hits.

#include "diff/sync_effects.h"

#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "diff/operator_downgrade.h"

namespace hkim {
namespace {

constexpr char kSourcePrefix[] = "# Source: templates/";
constexpr char kChecksumAnnotation[] = "hkimgen.io/config-checksum";
constexpr char kFabricChecksumAnnotation[] = "hkimgen.io/fabric-checksum";

std::string Scalar(const YAML::Node& node) {
  return node && node.IsScalar() ? node.as<std::string>() : "";
}

// The element of a list whose `name` is `name` (a container, an env entry), or an undefined node.
YAML::Node Named(const YAML::Node& list, const std::string& name) {
  for (const YAML::Node& item : list)
    if (item.IsMap() && Scalar(item["name"]) == name) return item;
  return YAML::Node(YAML::NodeType::Undefined);
}

// The node at a slash-separated path, or an undefined node: a part names a map's key, or in a
// list the element of that name ("spec/template/spec/containers/vf-config/env/MTU"). Const
// lookups and reset(): yaml-cpp's non-const operator[] and operator= would write into the
// document.
YAML::Node At(const YAML::Node& document, std::string_view path) {
  YAML::Node node;
  node.reset(document);
  std::string part;
  std::istringstream parts{std::string(path)};
  while (std::getline(parts, part, '/')) {
    const YAML::Node& current = node;
    if (!current.IsDefined() || !(current.IsMap() || current.IsSequence()))
      return YAML::Node(YAML::NodeType::Undefined);
    const YAML::Node child = current.IsMap() ? current[part] : Named(current, part);
    if (!child.IsDefined()) return YAML::Node(YAML::NodeType::Undefined);
    node.reset(child);
  }
  return node;
}

// A key of the map at `path`, or an undefined node.
YAML::Node Key(const YAML::Node& document, std::string_view path, const std::string& key) {
  const YAML::Node map = At(document, path);
  if (!map.IsDefined() || !map.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  return map[key];
}

// A subtree as text, to compare two objects below a field; "" when absent.
std::string Subtree(const YAML::Node& document, std::string_view path) {
  YAML::Node node = At(document, path);
  if (!node.IsDefined()) return "";
  YAML::Emitter out;
  out << node;
  return out.c_str();
}

bool IsFalse(const YAML::Node& document, std::string_view path) {
  const YAML::Node node = At(document, path);
  return node.IsDefined() && node.IsScalar() && node.as<std::string>() == "false";
}

// Every container image of a pod template (containers and init containers), in order.
std::vector<std::string> Images(const YAML::Node& document) {
  std::vector<std::string> images;
  for (const char* list : {"spec/template/spec/initContainers", "spec/template/spec/containers"}) {
    const YAML::Node containers = At(document, list);
    if (!containers.IsDefined() || !containers.IsSequence()) continue;
    for (const YAML::Node& c : containers) images.push_back(Scalar(Key(c, "", "image")));
  }
  return images;
}

// The ConfigMap names a pod template reads (envFrom configMapRef, volume configMap).
void ConfigMapsOf(const YAML::Node& node, std::set<std::string>& names) {
  if (node.IsMap()) {
    for (const auto& entry : node) {
      const std::string key = Scalar(entry.first);
      if ((key == "configMapRef" || key == "configMap") && entry.second.IsMap())
        names.insert(Scalar(entry.second["name"]));
      ConfigMapsOf(entry.second, names);
    }
  } else if (node.IsSequence()) {
    for (const YAML::Node& item : node) ConfigMapsOf(item, names);
  }
}

std::string Describe(const DisruptionRule& rule, const DiffObject& object) {
  std::string text(rule.what);
  if (!rule.nodes.empty()) text += "; nodes: " + std::string(rule.nodes);
  if (!rule.pace.empty()) text += "; at a time: " + std::string(rule.pace);
  if (!rule.watch.empty())
    text += "; watch: " + WatchCommand(rule, "kubectl", object.namespace_name, object.name);
  return text;
}

std::string DeleteCommand(const DiffObject& o) {
  return "kubectl delete " + o.kind + (o.namespace_name.empty() ? "" : " -n " + o.namespace_name) +
         " " + o.name;
}

// What a change of a ConfigMap does to the StatefulSets of the bundle that read it.
void ConfigMapReaders(const DiffObject& config, const std::vector<DiffObject>& wanted,
                      SyncEffect& effect) {
  for (const DiffObject& o : wanted) {
    if (o.kind != "StatefulSet" || o.namespace_name != config.namespace_name) continue;
    std::set<std::string> read;
    ConfigMapsOf(At(o.document, "spec/template/spec"), read);
    if (!read.count(config.name)) continue;
    const bool checksum =
        Key(o.document, "spec/template/metadata/annotations", kChecksumAnnotation).IsDefined();
    effect.notes.push_back(
        checksum ? "running pods read it at start only: StatefulSet " + o.name +
                       "'s " + kChecksumAnnotation +
                       " changes with it, so its pods are replaced (job restart, see its line)"
                 : "does not reach the running pods of StatefulSet " + o.name +
                       " (they read it at start): they keep the old values until they restart; "
                       "`kubectl rollout restart statefulset -n " + o.namespace_name + " " +
                       o.name + "` applies it now (a job restart)");
  }
}

// The parts of a fabric checksum ("nad:1a2b3c4d ip-pool:... check:...", plan/fabric_check.h),
// by name.
std::map<std::string, std::string> FabricParts(const DiffObject& o) {
  std::map<std::string, std::string> parts;
  std::istringstream words(
      Scalar(Key(o.document, "spec/template/metadata/annotations", kFabricChecksumAnnotation)));
  std::string word;
  while (words >> word) {
    const size_t colon = word.find(':');
    if (colon != std::string::npos) parts[word.substr(0, colon)] = word.substr(colon + 1);
  }
  return parts;
}

// What a changed fabric checksum of a StatefulSet means: which of its parts changed, in words,
// and the notes that go with them (empty when the checksum did not change).
std::string FabricChange(const DiffObject& before, const DiffObject& now, SyncEffect& effect) {
  const std::map<std::string, std::string> old_parts = FabricParts(before);
  const std::map<std::string, std::string> new_parts = FabricParts(now);
  if (old_parts == new_parts) return "";
  if (old_parts.empty()) {  // a bundle rendered before the annotation: nothing to compare
    effect.notes.push_back(std::string(kFabricChecksumAnnotation) +
                           " is new: every pod is replaced in this rollout" +
                           (new_parts.count("check") ? " and runs the fabric check" : ""));
    return "";
  }
  static const std::vector<std::pair<std::string, std::string>> kWords = {
      {"nad", "NADs"},
      {"ip-pool", "IP pool"},
      {"rdma-mode", "RDMA mode"},
      {"devices", "VF devices"},
      {"check", "fabric check thresholds"}};
  std::string changed;
  auto part = [](const std::map<std::string, std::string>& parts, const std::string& name) {
    const auto it = parts.find(name);
    return it == parts.end() ? std::string() : it->second;
  };
  for (const auto& [name, words] : kWords) {
    if (part(old_parts, name) == part(new_parts, name)) continue;
    changed += (changed.empty() ? "" : ", ") + words;
  }
  if (changed.empty()) changed = "its fabric";
  const bool checks = new_parts.count("check") > 0;
  effect.notes.push_back(
      std::string(kFabricChecksumAnnotation) + " changes (" + changed + "): every pod is " +
      "replaced in this rollout" +
      (checks ? " and runs the fabric check again before its command" : ""));
  if (part(old_parts, "ip-pool") != part(new_parts, "ip-pool"))
    effect.notes.push_back(
        "running pods keep their old addresses until they are replaced; the annotation replaces "
        "all of them, so no job mixes old and new subnets");
  return changed;
}

void CheckDowngrade(const DiffObject& before, const DiffObject& now, SyncEffect& effect) {
  const std::string package = Scalar(At(now.document, "spec/name"));
  for (const char* field : {"spec/channel", "spec/startingCSV"}) {
    const std::string reason = OlmDowngrade(package, Scalar(At(before.document, field)),
                                            Scalar(At(now.document, field)));
    if (!reason.empty() && effect.refusal.empty()) effect.refusal = reason;
  }
}

void CheckChartDowngrade(const DiffObject& before, const DiffObject& now, SyncEffect& effect) {
  const std::string chart = Scalar(At(now.document, "spec/source/chart"));
  if (chart.empty() || chart != Scalar(At(before.document, "spec/source/chart"))) return;
  const std::string reason =
      ChartDowngrade(chart, Scalar(At(before.document, "spec/source/targetRevision")),
                     Scalar(At(now.document, "spec/source/targetRevision")));
  if (!reason.empty() && effect.refusal.empty()) effect.refusal = reason;
}

}  // namespace

DiffObject ParseDiffObject(const std::string& text) {
  DiffObject o;
  if (text.rfind(kSourcePrefix, 0) == 0) {
    const size_t end = text.find('\n');
    o.template_name = text.substr(sizeof kSourcePrefix - 1, end - (sizeof kSourcePrefix - 1));
  }
  try {
    o.document = YAML::Load(text);
  } catch (const YAML::Exception&) {
    return o;  // not YAML (README.md): no object
  }
  if (!o.document.IsMap()) return o;
  o.group = ApiGroupOf(Scalar(At(o.document, "apiVersion")));
  o.kind = Scalar(At(o.document, "kind"));
  o.name = Scalar(At(o.document, "metadata/name"));
  o.namespace_name = Scalar(At(o.document, "metadata/namespace"));
  const std::string options =
      Scalar(Key(o.document, "metadata/annotations", "argocd.argoproj.io/sync-options"));
  o.keep_on_removal = options.find("Prune=false") != std::string::npos ||
                      options.find("Delete=false") != std::string::npos;
  return o;
}

SyncEffect EffectOfAdding(const DiffObject& now) {
  SyncEffect effect;
  for (const DisruptionRule* rule : DisruptionRulesOf(now.kind, now.template_name)) {
    if (!TouchesNodes(rule->effect) || rule->effect <= effect.effect) continue;
    // A row of a section the object does not have (a NicClusterPolicy without ofedDriver).
    if (!rule->field.empty() && !At(now.document, rule->field).IsDefined()) continue;
    if (!rule->inert_unless.empty() && IsFalse(now.document, rule->inert_unless)) continue;
    effect.effect = rule->effect;
    effect.what = "when first applied: " + Describe(*rule, now);
  }
  return effect;
}

SyncEffect EffectOfChange(const DiffObject& before, const DiffObject& now,
                          const std::vector<DiffObject>& wanted) {
  SyncEffect effect;
  const DisruptionRule* worst = nullptr;
  for (const DisruptionRule* rule : DisruptionRulesOf(now.kind, now.template_name)) {
    if (!rule->field.empty() &&
        Subtree(before.document, rule->field) == Subtree(now.document, rule->field))
      continue;
    if (!rule->inert_unless.empty() && IsFalse(before.document, rule->inert_unless) &&
        IsFalse(now.document, rule->inert_unless)) {
      effect.notes.push_back(std::string(rule->field) + " changes, but " +
                             std::string(rule->inert_unless) +
                             " is false: nothing of it runs, nothing rolls");
      continue;
    }
    if (!worst || rule->effect > worst->effect) worst = rule;
  }
  if (worst && worst->effect != Disruption::kNone) {
    effect.effect = worst->effect;
    effect.what = Describe(*worst, now);
    const std::vector<std::string> old_images = Images(before.document);
    const std::vector<std::string> new_images = Images(now.document);
    if (old_images != new_images) effect.what = "its image changes; " + effect.what;
    if (now.kind == "StatefulSet") {
      const std::string fabric = FabricChange(before, now, effect);
      if (!fabric.empty()) effect.what = "the fabric changes (" + fabric + "); " + effect.what;
    }
  } else if (now.kind == "ConfigMap") {
    ConfigMapReaders(now, wanted, effect);
    if (effect.notes.empty() && worst) effect.notes.push_back(std::string(worst->what));
  } else if (worst) {
    effect.notes.push_back(std::string(worst->what));
  }
  if (now.kind == "Subscription") CheckDowngrade(before, now, effect);
  if (now.kind == "Application") {
    CheckChartDowngrade(before, now, effect);
    // gitops.self_sync moved: say who presses sync from now on.
    const bool was = At(before.document, "spec/syncPolicy/automated").IsDefined();
    const bool is = At(now.document, "spec/syncPolicy/automated").IsDefined();
    if (was && !is)
      effect.notes.push_back("stops syncing itself: its changes wait for `argocd app sync " +
                             now.name + "`");
    if (!was && is)
      effect.notes.push_back("syncs itself from now on: every merged change of it is applied");
  }
  return effect;
}

SyncEffect EffectOfRemoval(const DiffObject& before) {
  SyncEffect effect;
  const DisruptionRule* worst = nullptr;
  for (const DisruptionRule* rule : DisruptionRulesOf(before.kind, before.template_name))
    if (TouchesNodes(rule->effect) && (!worst || rule->effect > worst->effect)) worst = rule;
  if (before.keep_on_removal) {
    // Nothing happens on the cluster: say so, and what deleting it by hand would do.
    effect.notes.push_back(
        "left in place: Argo CD does not delete it (Prune=false, Delete=false); when it should "
        "go, delete it by hand: " + DeleteCommand(before) +
        (worst ? " (then " + std::string(worst->what) + ")" : ""));
    return effect;
  }
  effect.notes.push_back(
      "Argo CD deletes it on a sync with prune (argocd app sync --prune); until then it stays");
  if (worst) {
    effect.effect = worst->effect;
    effect.what = "deleting it: " + Describe(*worst, before);
  }
  return effect;
}

std::string MoveNote(const DiffObject& before, const std::string& from, const std::string& to) {
  return "moves from the " + from + " Application to the " + to +
         " one, which takes it over when it syncs" +
         (before.keep_on_removal
              ? "; the " + from + " Application leaves it in place (Prune=false)"
              : "; sync the " + from + " Application without prune until then, or it deletes it");
}

}  // namespace hkim

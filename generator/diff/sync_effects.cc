// Diff stage, `hkimgen diff` (diff/sync_effects.h). Which change does what is the table's
// (plan/disruption.h); this file only finds which of a kind's rows a change hits.

#include "diff/sync_effects.h"

#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "diff/operator_downgrade.h"

namespace hkim {
namespace {

constexpr char kSourcePrefix[] = "# Source: templates/";
constexpr char kChecksumAnnotation[] = "hkimgen.io/config-checksum";
constexpr char kFabricChecksumAnnotation[] = "hkimgen.io/fabric-checksum";
constexpr char kBootstrapTemplates[] = "bootstrap/";

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

// What a ClusterRole grants: each resource of each rule, "resource.group" ("configmaps" in the
// core group).
std::set<std::string> GrantedResources(const DiffObject& role) {
  std::set<std::string> granted;
  const YAML::Node rules = At(role.Document(), "rules");
  if (!rules.IsDefined() || !rules.IsSequence()) return granted;
  for (const YAML::Node& rule : rules) {
    const YAML::Node groups = Key(rule, "", "apiGroups");
    const YAML::Node resources = Key(rule, "", "resources");
    if (!groups.IsSequence() || !resources.IsSequence()) continue;
    for (const YAML::Node& group : groups) {
      for (const YAML::Node& resource : resources) {
        const std::string g = Scalar(group);
        granted.insert(Scalar(resource) + (g.empty() ? "" : "." + g));
      }
    }
  }
  return granted;
}

// What a change of a ConfigMap does to the StatefulSets of the bundle that read it.
void ConfigMapReaders(const DiffObject& config, const std::vector<DiffObject>& wanted,
                      SyncEffect& effect) {
  for (const DiffObject& o : wanted) {
    if (o.kind != "StatefulSet" || o.namespace_name != config.namespace_name) continue;
    std::set<std::string> read;
    ConfigMapsOf(At(o.Document(), "spec/template/spec"), read);
    if (!read.count(config.name)) continue;
    const bool checksum =
        Key(o.Document(), "spec/template/metadata/annotations", kChecksumAnnotation).IsDefined();
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
      Scalar(Key(o.Document(), "spec/template/metadata/annotations", kFabricChecksumAnnotation)));
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
      // The parts are the objects that provide these (plan/fabric_check.cc), so a change says
      // that the provider changed (OKE's VF DaemonSet: its VF count or MTU too), not the mode.
      {"rdma-mode", "the RDMA mode's set-up"},
      {"devices", "the VFs' provider"},
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
  const std::string package = Scalar(At(now.Document(), "spec/name"));
  for (const char* field : {"spec/channel", "spec/startingCSV"}) {
    const std::string reason = OlmDowngrade(package, Scalar(At(before.Document(), field)),
                                            Scalar(At(now.Document(), field)));
    if (!reason.empty() && effect.refusal.empty()) effect.refusal = reason;
  }
}

void CheckChartDowngrade(const DiffObject& before, const DiffObject& now, SyncEffect& effect) {
  const std::string chart = Scalar(At(now.Document(), "spec/source/chart"));
  if (chart.empty() || chart != Scalar(At(before.Document(), "spec/source/chart"))) return;
  const std::string reason =
      ChartDowngrade(chart, Scalar(At(before.Document(), "spec/source/targetRevision")),
                     Scalar(At(now.Document(), "spec/source/targetRevision")));
  if (!reason.empty() && effect.refusal.empty()) effect.refusal = reason;
}

bool KeepsOnRemoval(std::string_view sync_options) {
  return sync_options.find("Prune=false") != std::string_view::npos ||
         sync_options.find("Delete=false") != std::string_view::npos;
}

// What identifies an object, read without a YAML parser.
struct ObjectHeader {
  std::string api_version, kind, name, namespace_name, sync_options;
};

// A line `key:` or `key: value` (at its indentation) split into its key and its value as
// written, trailing spaces cut; false for any other form (a quoted or complex key, a sequence
// item, a document marker, a control character). The key is letters, digits and `._/-`.
bool SplitKeyLine(std::string_view line, std::string_view& key, std::string_view& value) {
  size_t i = 0;
  while (i < line.size() && (std::isalnum(static_cast<unsigned char>(line[i])) ||
                             line[i] == '_' || line[i] == '.' || line[i] == '/' ||
                             line[i] == '-'))
    ++i;
  if (i == 0 || i >= line.size() || line[i] != ':') return false;
  if (i + 1 < line.size() && line[i + 1] != ' ') return false;
  for (const char c : line)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  key = line.substr(0, i);
  value = line.substr(i + 1);
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
  return true;
}

// The string a value the reader reads means: a plain scalar without indicators, comments, `: `,
// a trailing colon or a null spelling, or a quoted one without escapes. False for anything else
// (the YAML parser reads it then).
bool ScalarOf(std::string_view raw, std::string& value) {
  if (raw.empty()) return false;
  const char first = raw[0];
  if (first == '"' || first == '\'') {
    if (raw.size() < 2 || raw.back() != first) return false;
    const std::string_view inner = raw.substr(1, raw.size() - 2);
    if (inner.find(first) != std::string_view::npos ||
        (first == '"' && inner.find('\\') != std::string_view::npos))
      return false;
    value = std::string(inner);
    return true;
  }
  if (std::string_view("-?:,[]{}#&*!|>%@`").find(first) != std::string_view::npos ||
      raw.find(": ") != std::string_view::npos || raw.find(" #") != std::string_view::npos ||
      raw.back() == ':' || raw == "~" || raw == "null" || raw == "Null" || raw == "NULL")
    return false;
  value = std::string(raw);
  return true;
}

// How a value the reader does not read ends: on its own line (a scalar, a flow collection or a
// quoted string closed there), as a block scalar whose text is the deeper lines after it, or in
// a form the reader does not follow (false).
enum class ValueEnd { kThisLine, kBlockScalar };
bool EndOfValue(std::string_view raw, ValueEnd& end) {
  end = ValueEnd::kThisLine;
  if (raw.empty()) return true;
  const char first = raw[0];
  if (first == '|' || first == '>') {
    end = ValueEnd::kBlockScalar;
    return true;
  }
  if (first == '"' || first == '\'' || first == '[' || first == '{') {
    const char last = first == '[' ? ']' : first == '{' ? '}' : first;
    const std::string_view inner = raw.size() >= 2 ? raw.substr(1, raw.size() - 2) : "";
    return raw.size() >= 2 && raw.back() == last &&
           inner.find_first_of("\"'[]{}\\") == std::string_view::npos;
  }
  if (std::string_view("&*!%@`").find(first) != std::string_view::npos) return false;
  if ((first == '-' || first == '?' || first == ':') && (raw.size() == 1 || raw[1] == ' '))
    return false;
  return raw.find(": ") == std::string_view::npos && raw.back() != ':';
}

// The identity of a file whose lines are all in the form hkimgen writes: comments; top-level
// `key:` lines; metadata's `name`, `namespace` and `annotations` two spaces in, the annotations
// four spaces in; no value continued on a deeper line. Lines below other keys are not read.
// nullopt for anything else (several documents, tabs, anchors, multi-line flow collections, a
// repeated key), which the YAML parser then reads.
std::optional<ObjectHeader> ReadPlainHeader(std::string_view text) {
  ObjectHeader header;
  bool api_version = false, kind = false, metadata = false, name = false, namespace_name = false;
  bool annotations = false, sync_options = false;
  enum class Block { kOther, kMetadata, kAnnotations, kOtherInMetadata } block = Block::kOther;
  size_t value_indent = std::string_view::npos;  // a one-line value ended at this indentation
  bool top_level_sequence = false;  // the last top-level key has no value: a `- ` item may follow
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    const size_t indent = line.find_first_not_of(' ');
    if (indent == std::string_view::npos) continue;  // blank
    if (line[indent] == '\t' || line.find('\r') != std::string_view::npos) return std::nullopt;
    // Nothing may continue a one-line value on a deeper line, a comment included.
    if (value_indent != std::string_view::npos && indent > value_indent) return std::nullopt;
    if (line[indent] == '#') continue;
    value_indent = std::string_view::npos;
    if (indent > 0 && block == Block::kOther) continue;  // below a key not read
    if (indent == 0 && line[0] == '-' && (line.size() == 1 || line[1] == ' ')) {
      // An item of the last top-level key's sequence, written at the margin ("rules:\n- ...").
      if (block == Block::kOther && top_level_sequence) continue;
      return std::nullopt;
    }
    std::string_view key, raw;
    const size_t depth = indent == 0 ? 0 : indent == 2 ? 1 : indent == 4 ? 2 : 3;
    if (depth == 3 || (depth == 2 && block != Block::kAnnotations)) {
      if (block == Block::kOtherInMetadata && indent > 2) continue;  // labels' entries: not read
      return std::nullopt;
    }
    if (!SplitKeyLine(line.substr(indent), key, raw)) {
      if (block == Block::kOtherInMetadata && indent > 2) continue;
      return std::nullopt;
    }
    std::string* field = nullptr;
    bool* seen = nullptr;
    if (depth == 0) {
      block = Block::kOther;
      top_level_sequence = raw.empty();
      if (key == "apiVersion") field = &header.api_version, seen = &api_version;
      if (key == "kind") field = &header.kind, seen = &kind;
      if (key == "metadata") {
        if (metadata || !raw.empty()) return std::nullopt;
        metadata = true;
        block = Block::kMetadata;
        continue;
      }
    } else if (depth == 1) {
      block = Block::kOtherInMetadata;
      if (key == "name") field = &header.name, seen = &name;
      if (key == "namespace") field = &header.namespace_name, seen = &namespace_name;
      if (key == "annotations") {
        if (annotations || !raw.empty()) return std::nullopt;
        annotations = true;
        block = Block::kAnnotations;
        continue;
      }
    } else if (key == "argocd.argoproj.io/sync-options") {
      field = &header.sync_options, seen = &sync_options;
    }
    if (field) {
      if (*seen || !ScalarOf(raw, *field)) return std::nullopt;
      *seen = true;
      value_indent = indent;
      continue;
    }
    ValueEnd value_end;
    if (!EndOfValue(raw, value_end)) return std::nullopt;
    if (!raw.empty() && value_end == ValueEnd::kThisLine) value_indent = indent;
    if (value_end == ValueEnd::kBlockScalar) {
      if (depth == 2) return std::nullopt;  // an annotation's text: its lines are not followed
      block = depth == 0 ? Block::kOther : Block::kOtherInMetadata;
    }
  }
  if (!api_version || !kind || !metadata || !name) return std::nullopt;
  return header;
}

}  // namespace

const YAML::Node& DiffObject::Document() const {
  if (!document_) {
    try {
      document_ = YAML::Load(std::string(text_));
    } catch (const YAML::Exception&) {
      document_ = YAML::Node(YAML::NodeType::Null);  // not YAML (README.md)
    }
  }
  return *document_;
}

DiffObject ParseDiffObject(std::string_view text) {
  DiffObject o;
  o.text_ = text;
  if (text.rfind(kSourcePrefix, 0) == 0) {
    const size_t end = text.find('\n');
    o.template_name =
        std::string(text.substr(sizeof kSourcePrefix - 1, end - (sizeof kSourcePrefix - 1)));
  }
  if (std::optional<ObjectHeader> header = ReadPlainHeader(text)) {
    o.group = std::string(ApiGroupOf(header->api_version));
    o.kind = std::move(header->kind);
    o.name = std::move(header->name);
    o.namespace_name = std::move(header->namespace_name);
    o.keep_on_removal = KeepsOnRemoval(header->sync_options);
    return o;
  }
  const YAML::Node& document = o.Document();
  if (!document.IsMap()) return o;
  o.group = ApiGroupOf(Scalar(At(document, "apiVersion")));
  o.kind = Scalar(At(document, "kind"));
  o.name = Scalar(At(document, "metadata/name"));
  o.namespace_name = Scalar(At(document, "metadata/namespace"));
  o.keep_on_removal = KeepsOnRemoval(
      Scalar(Key(document, "metadata/annotations", "argocd.argoproj.io/sync-options")));
  return o;
}

SyncEffect EffectOfAdding(const DiffObject& now) {
  SyncEffect effect;
  for (const DisruptionRule* rule : DisruptionRulesOf(now.kind, now.template_name)) {
    if (!TouchesNodes(rule->effect) || rule->effect <= effect.effect) continue;
    // A row of a section the object does not have (a NicClusterPolicy without ofedDriver).
    if (!rule->field.empty() && !At(now.Document(), rule->field).IsDefined()) continue;
    if (!rule->inert_unless.empty() && IsFalse(now.Document(), rule->inert_unless)) continue;
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
        Subtree(before.Document(), rule->field) == Subtree(now.Document(), rule->field))
      continue;
    if (!rule->inert_unless.empty() && IsFalse(before.Document(), rule->inert_unless) &&
        IsFalse(now.Document(), rule->inert_unless)) {
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
    const std::vector<std::string> old_images = Images(before.Document());
    const std::vector<std::string> new_images = Images(now.Document());
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
    const bool was = At(before.Document(), "spec/syncPolicy/automated").IsDefined();
    const bool is = At(now.Document(), "spec/syncPolicy/automated").IsDefined();
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
  if (AppliedByHand(before)) {
    effect.notes.push_back(
        "left in place: Argo CD never applied it (bootstrap/); when it should go, a cluster admin "
        "deletes it: " + DeleteCommand(before));
    return effect;
  }
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

bool AppliedByHand(const DiffObject& object) {
  return object.template_name.rfind(kBootstrapTemplates, 0) == 0;
}

std::vector<std::string> BootstrapNotes(const DiffObject* before, const DiffObject& now,
                                        const std::string& file) {
  if (!AppliedByHand(now)) return {};
  const std::string apply = "`oc apply -f " + file + "` in the bundle folder";
  if (!before)
    return {"bootstrap: Argo CD does not apply it; a cluster admin applies it before the sync: " +
            apply};
  if (now.kind != "ClusterRole")
    return {"bootstrap: Argo CD does not apply it; a cluster admin re-applies it before the "
            "sync: " + apply};
  const std::set<std::string> old_grants = GrantedResources(*before);
  const std::set<std::string> new_grants = GrantedResources(now);
  std::string gained, dropped;
  for (const std::string& r : new_grants)
    if (!old_grants.count(r)) gained += (gained.empty() ? "" : ", ") + r;
  for (const std::string& r : old_grants)
    if (!new_grants.count(r)) dropped += (dropped.empty() ? "" : ", ") + r;
  std::vector<std::string> notes;
  if (!gained.empty())
    notes.push_back("bootstrap: it grants Argo CD " + gained +
                    ", which the bundle's new objects need; Argo CD does not apply it, so a "
                    "cluster admin re-applies it before the sync (" + apply +
                    "), or the sync is refused writing them");
  if (!dropped.empty())
    notes.push_back("bootstrap: it no longer grants " + dropped +
                    "; the rights stay on the cluster until a cluster admin re-applies it (" +
                    apply + ")");
  if (notes.empty())
    notes.push_back("bootstrap: Argo CD does not apply it; a cluster admin re-applies it (" +
                    apply + ")");
  return notes;
}

std::string MoveNote(const DiffObject& before, const std::string& from, const std::string& to) {
  return "moves from the " + from + " Application to the " + to +
         " one, which takes it over when it syncs" +
         (before.keep_on_removal
              ? "; the " + from + " Application leaves it in place (Prune=false)"
              : "; sync the " + from + " Application without prune until then, or it deletes it");
}

}  // namespace hkim

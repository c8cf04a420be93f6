#include "discover/export_load.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "discover/export_parse.h"
#include "discover/json_locate.h"
#include "load/load_input.h"
#include "support/input_limits.h"

namespace hkim::discover {

// Fully qualified names (`ippools` alone is also Calico's), and only those the cluster serves:
// `kubectl get a,b,c` stops at the first type it does not know.
const char kExportCommand[] =
    "kubectl get -A -o json $(kubectl api-resources -o name | grep -xF"
    " -e nodes"
    " -e sriovnetworknodestates.sriovnetwork.openshift.io"
    " -e network-attachment-definitions.k8s.cni.cncf.io"
    " -e ippools.nv-ipam.nvidia.com"
    " -e nicclusterpolicies.mellanox.com"
    " -e clusterpolicies.nvidia.com"
    " -e machineconfigpools.machineconfiguration.openshift.io"
    " -e clusterversions.config.openshift.io"
    " -e networks.config.openshift.io"
    " -e clusterserviceversions.operators.coreos.com"
    " -e operatorgroups.operators.coreos.com"
    " -e subscriptions.operators.coreos.com"
    " -e sriovnetworknodepolicies.sriovnetwork.openshift.io"
    " -e sriovoperatorconfigs.sriovnetwork.openshift.io"
    " -e sriovnetworkpoolconfigs.sriovnetwork.openshift.io"
    " -e nodefeaturediscoveries.nfd.openshift.io"
    " -e machineconfigs.machineconfiguration.openshift.io"
    " -e securitycontextconstraints.security.openshift.io"
    " -e applications.argoproj.io"
    " -e pods"
    " | paste -sd, -) > cluster-export.json";
const char kHelmReleaseExportCommand[] =
    "kubectl get --raw '/api/v1/secrets?labelSelector=owner%3Dhelm' | jq 'del(.items[].data)' "
    "> helm-releases.json";

namespace {

std::string StringAt(const nlohmann::json& object, const char* a, const char* b = nullptr) {
  if (!object.is_object()) return "";
  auto first = object.find(a);
  if (first == object.end()) return "";
  if (b == nullptr) return first->is_string() ? first->get<std::string>() : "";
  if (!first->is_object()) return "";
  auto second = first->find(b);
  return second != first->end() && second->is_string() ? second->get<std::string>() : "";
}

// What one file's walk finds besides its objects: the items that are not objects, reported once
// per file (100,000 of them are one warning, not 100,000 that each repeat the export command).
struct Skipped {
  std::size_t count = 0;
  std::vector<std::string> first;  // the first few pointers, for the message
  std::size_t offset = std::string::npos;  // where the first starts (JSON)
  std::string pointer;                     // the first's pointer (YAML: for its source map)
};
constexpr std::size_t kSkippedNamed = 3;

// Each List's items offsets by the pointer of its array (a file may hold many Lists).
using ListIndex = std::unordered_map<std::string, const ListItems*>;

// One file's walk: where its objects go, what it skips, which typed lists it holds.
struct Walk {
  int file = 0;
  const ListIndex& lists;
  std::vector<ExportObject>& out;
  Skipped& skipped;
  std::set<std::string>& listed_kinds;
};

// The kind and apiVersion a typed list gives its items ("SecretList" of "v1": Secret, v1); the
// API server leaves them out of each item of a list it answers. Empty for kubectl's "List".
struct ItemType {
  std::string kind;
  std::string api_version;
};

void Collect(const nlohmann::json& value, const std::string& pointer, std::size_t offset,
             const ItemType& typed, Walk& walk) {
  // kubectl prints several kinds as {"kind": "List", "items": [...]}; typed lists
  // ("NodeList") look the same. An object inside a list may itself be a list (several files
  // pasted into one): flatten recursively (the parser kept at most kMaxExportDepth levels).
  const std::string kind = StringAt(value, "kind");
  if (value.is_object() && kind.ends_with("List")) {
    auto items = value.find("items");
    if (items != value.end() && items->is_array()) {
      ItemType item_type;
      if (kind.size() > 4 && kind != "List") {
        item_type = {kind.substr(0, kind.size() - 4), StringAt(value, "apiVersion")};
        walk.listed_kinds.insert(item_type.kind);
      }
      const std::string list = pointer + "/items";
      auto found = walk.lists.find(list);
      const ListItems* mine = found == walk.lists.end() ? nullptr : found->second;
      for (std::size_t i = 0; i < items->size(); ++i) {
        const std::size_t at = mine && i < mine->offsets.size() ? mine->offsets[i] : offset;
        Collect((*items)[i], list + "/" + std::to_string(i), at, item_type, walk);
      }
      return;
    }
  }
  ExportObject object;
  const std::string api_version = StringAt(value, "apiVersion");
  object.group = ApiGroupOf(api_version.empty() ? typed.api_version : api_version);
  object.kind = kind.empty() ? typed.kind : kind;
  object.name = StringAt(value, "metadata", "name");
  object.namespace_name = StringAt(value, "metadata", "namespace");
  if (object.kind.empty() || object.name.empty()) {
    if (walk.skipped.count++ == 0) {
      walk.skipped.offset = offset;
      walk.skipped.pointer = pointer;
    }
    if (walk.skipped.first.size() < kSkippedNamed)
      walk.skipped.first.push_back(pointer.empty() ? "/" : pointer);
    return;
  }
  object.json = &value;
  object.pointer = pointer;
  object.file = walk.file;
  object.offset = offset;
  walk.out.push_back(std::move(object));
}

void ReportSkipped(const Skipped& skipped, const SourceLocation& where, DiagnosticSink& sink) {
  if (skipped.count == 0) return;
  std::string message;
  if (skipped.count == 1) {
    message = skipped.pointer.empty()
                  ? "this is not a Kubernetes object (no kind or metadata.name); skipped"
                  : "the item at " + skipped.first.front() +
                        " is not a Kubernetes object (no kind or metadata.name); skipped";
  } else {
    message = std::to_string(skipped.count) +
              " items are not Kubernetes objects (no kind or metadata.name) and were skipped: ";
    for (std::size_t i = 0; i < skipped.first.size(); ++i) {
      message += (i > 0 ? ", " : "") + skipped.first[i];
    }
    if (skipped.count > skipped.first.size()) {
      message += " and " + std::to_string(skipped.count - skipped.first.size()) + " more";
    }
  }
  sink.Report(Diagnostic{Severity::kWarning, where, skipped.pointer, "discover.not-an-object",
                         message, std::string("export with: ") + kExportCommand});
}

// A JSON export: parsed directly (the profile loader's source map and value limits suit a
// profile of a few kilobytes, not hundreds of megabytes), positions recorded by the parser.
std::optional<LoadedProfile> LoadJsonExport(const ExportInput& input, ParsedExport* parsed,
                                            DiagnosticSink& sink) {
  if (std::optional<EncodingError> bad = FindEncodingError(input.text)) {
    sink.Report(Diagnostic{Severity::kError, SourceLocation{input.path, bad->line, bad->column},
                           "", "yaml.encoding", "the export is not UTF-8 text: " + bad->what,
                           std::string("export the cluster again with: ") + kExportCommand});
    return std::nullopt;
  }
  ExportParseError error;
  std::optional<ParsedExport> result = ParseJsonExport(input.text, &error);
  if (!result) {
    const bool cut = error.rule == "yaml.syntax" &&
                     input.text.find_last_not_of(" \t\r\n") < error.offset + 1;
    sink.Report(Diagnostic{Severity::kError, LocationOfOffset(input.path, input.text, error.offset),
                           "", error.rule, error.message,
                           (cut ? "a cut-off export? export the cluster again with: "
                                : "export the cluster again with: ") +
                               std::string(kExportCommand)});
    return std::nullopt;
  }
  *parsed = std::move(*result);
  LoadedProfile loaded;
  loaded.path = input.path;
  loaded.document = std::move(parsed->document);
  if (!loaded.document.is_object()) {
    sink.Report(Diagnostic{Severity::kError,
                           LocationOfOffset(input.path, input.text, parsed->root_offset), "",
                           "discover.not-an-object",
                           "the export is a JSON " + std::string(loaded.document.type_name()) +
                               ", not a Kubernetes object or List",
                           std::string("export the cluster with: ") + kExportCommand});
    return std::nullopt;
  }
  return loaded;  // source lines: FillCitedSourceLines
}

// A YAML export goes through the profile loader, whose messages speak of "the profile": say
// "the export" instead, with the export's fix.
std::optional<LoadedProfile> LoadYamlExport(const ExportInput& input, DiagnosticSink& sink) {
  DiagnosticSink load;
  std::optional<LoadedProfile> loaded = LoadProfileFromText(input.path, input.text, load);
  for (Diagnostic d : load.diagnostics()) {
    for (std::size_t at = d.message.find("profile"); at != std::string::npos;
         at = d.message.find("profile", at)) {
      d.message.replace(at, 7, "export");
    }
    if (d.fix.find("profile") != std::string::npos) {
      d.fix = std::string("export the cluster with: ") + kExportCommand;
    }
    sink.Report(std::move(d));
  }
  if (loaded && !loaded->document.is_object()) {
    sink.Report(Diagnostic{Severity::kError, SourceLocation{input.path, 1, 1}, "",
                           "discover.not-an-object",
                           "the export is a YAML " + std::string(loaded->document.type_name()) +
                               ", not a Kubernetes object or List",
                           std::string("export the cluster with: ") + kExportCommand});
    return std::nullopt;
  }
  return loaded;
}

}  // namespace

void FillCitedSourceLines(ExportSet& set, const DiagnosticSink& sink) {
  for (size_t f = 0; f < set.files.size(); ++f) {
    LoadedProfile& file = set.files[f];
    if (set.texts[f].empty() || !file.source_lines.empty()) continue;
    for (const Diagnostic& d : sink.diagnostics()) {
      if (d.location.file != file.path || !d.location.known()) continue;
      file.source_lines = LoadProfileFromTextLines(set.texts[f]);
      break;
    }
  }
}

SourceLocation ExportSet::Locate(const ExportObject& object, const std::string& pointer) const {
  const std::string& text = texts[object.file];
  if (text.empty()) return files[object.file].locations.Find(object.pointer + pointer);
  if (pointer.empty()) return object.start;
  const std::string_view rest = std::string_view(text).substr(object.offset);
  const std::size_t at = FindJsonPointer(rest, pointer);
  if (at == std::string::npos) return object.start;
  // Lines from the object's start: the text before it is not scanned again.
  SourceLocation inner = LocationOfOffset(object.start.file, rest, at);
  if (inner.line == 1) inner.column += object.start.column - 1;
  inner.line += object.start.line - 1;
  return inner;
}

namespace {

// Line and column of every object of JSON file `f`, from the offsets the parser recorded, in
// one pass over the text.
void LocateObjects(ExportSet& set, std::size_t begin, int f) {
  const std::string& text = set.texts[f];
  std::vector<ExportObject*> mine;
  for (std::size_t i = begin; i < set.objects.size(); ++i) mine.push_back(&set.objects[i]);
  if (text.empty()) {
    for (ExportObject* object : mine) object->start = set.files[f].locations.Find(object->pointer);
    return;
  }
  std::stable_sort(mine.begin(), mine.end(),
                   [](const ExportObject* a, const ExportObject* b) { return a->offset < b->offset; });
  int line = 1;
  std::size_t pos = 0, line_start = 0;
  for (ExportObject* object : mine) {
    for (; pos < object->offset && pos < text.size(); ++pos) {
      if (text[pos] == '\n') {
        ++line;
        line_start = pos + 1;
      }
    }
    object->start = {set.files[f].path, line, static_cast<int>(object->offset - line_start) + 1};
  }
}

}  // namespace

ExportSet LoadExports(std::vector<ExportInput> inputs, DiagnosticSink& sink) {
  ExportSet set;
  // Objects point into set.files: it must not grow past this while they are collected.
  set.files.reserve(inputs.size());
  for (ExportInput& input : inputs) {
    const std::size_t first = input.text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) {
      // The loader would call it an empty profile; say what an export should hold instead.
      sink.Report(Diagnostic{Severity::kError, SourceLocation{input.path, 1, 1}, "",
                             "discover.empty",
                             "the export is empty: the command that wrote it printed nothing "
                             "(most often it failed, e.g. no access to the cluster, and a pipe "
                             "or the shell's redirection still wrote the file)",
                             std::string("run the command that wrote this file again and read "
                                         "its error (with `set -o pipefail`, a failed kubectl "
                                         "in a pipe fails the line); the cluster's export: ") +
                                 kExportCommand});
      continue;
    }
    if (input.text.size() > limits::kMaxExportBytes) {
      sink.Report(Diagnostic{Severity::kError, SourceLocation{input.path, 0, 0}, "",
                             "limit.file-size",
                             "the export is larger than " +
                                 std::to_string(limits::kMaxExportBytes >> 20) + " MiB",
                             "export only the types hkimgen reads: " + std::string(kExportCommand)});
      continue;
    }
    const bool json = input.text[first] == '{' || input.text[first] == '[';
    ParsedExport parsed;
    std::optional<LoadedProfile> loaded =
        json ? LoadJsonExport(input, &parsed, sink) : LoadYamlExport(input, sink);
    if (!loaded) continue;
    const int f = static_cast<int>(set.files.size());
    set.files.push_back(std::move(*loaded));
    set.texts.push_back(json ? std::move(input.text) : std::string());
    const std::size_t begin = set.objects.size();
    ListIndex lists;
    for (const ListItems& list : parsed.lists) lists[list.pointer] = &list;
    Skipped skipped;
    Walk walk{f, lists, set.objects, skipped, set.listed_kinds};
    Collect(set.files[f].document, "", parsed.root_offset, ItemType{}, walk);
    LocateObjects(set, begin, f);
    const std::string& text = set.texts[f];
    ReportSkipped(skipped,
                  text.empty() ? set.files[f].locations.Find(skipped.pointer)
                               : LocationOfOffset(set.files[f].path, text,
                                                  skipped.offset == std::string::npos
                                                      ? 0
                                                      : skipped.offset),
                  sink);
  }
  return set;
}

}  // namespace hkim::discover

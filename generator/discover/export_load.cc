#include "discover/export_load.h"

#include <algorithm>
#include <set>

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

namespace {

std::string StringAt(const nlohmann::json& object, const char* a, const char* b = nullptr) {
  if (!object.is_object() || !object.contains(a)) return "";
  const nlohmann::json& first = object[a];
  if (b == nullptr) return first.is_string() ? first.get<std::string>() : "";
  if (!first.is_object() || !first.contains(b) || !first[b].is_string()) return "";
  return first[b].get<std::string>();
}

void Collect(const nlohmann::json& value, const std::string& pointer, int file,
             const ExportSet& set, std::vector<ExportObject>& out, DiagnosticSink& sink) {
  // kubectl prints several kinds as {"kind": "List", "items": [...]}; typed lists
  // ("NodeList") look the same. An object inside a list may itself be a list (several files
  // pasted into one): flatten recursively.
  if (value.is_object() && value.contains("items") && value["items"].is_array() &&
      StringAt(value, "kind").ends_with("List")) {
    const nlohmann::json& items = value["items"];
    for (size_t i = 0; i < items.size(); ++i) {
      Collect(items[i], pointer + "/items/" + std::to_string(i), file, set, out, sink);
    }
    return;
  }
  ExportObject object;
  object.kind = StringAt(value, "kind");
  object.name = StringAt(value, "metadata", "name");
  object.namespace_name = StringAt(value, "metadata", "namespace");
  if (object.kind.empty() || object.name.empty()) {
    sink.Report(Diagnostic{Severity::kWarning, LocateInFile(set, file, pointer), pointer,
                           "discover.not-an-object",
                           "this is not a Kubernetes object (no kind or metadata.name); skipped",
                           std::string("export with: ") + kExportCommand});
    return;
  }
  object.json = &value;
  object.pointer = pointer;
  object.file = file;
  out.push_back(std::move(object));
}

// Fields no check reads and that make up most of a real export (a node's image list, every
// object's managedFields): dropped while parsing, so a 2,000-node export stays small in memory.
bool Keep(int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
  using Event = nlohmann::json::parse_event_t;
  if (event == Event::key) {
    static const std::set<std::string> kDropped = {"managedFields", "images", "conditions",
                                                   "volumesInUse", "volumesAttached",
                                                   "last-applied-configuration"};
    return !(parsed.is_string() && kDropped.count(parsed.get_ref<const std::string&>()));
  }
  if (event == Event::object_start || event == Event::array_start) {
    return static_cast<std::size_t>(depth) < limits::kMaxExportDepth;
  }
  return true;
}

// A JSON export: parsed directly (the profile loader's source map and value limits suit a
// profile of a few kilobytes, not tens of megabytes).
std::optional<LoadedProfile> LoadJsonExport(const ExportInput& input, DiagnosticSink& sink) {
  if (std::optional<EncodingError> bad = FindEncodingError(input.text)) {
    sink.Report(Diagnostic{Severity::kError, SourceLocation{input.path, bad->line, bad->column},
                           "", "yaml.encoding", "the export is not UTF-8 text: " + bad->what,
                           std::string("export the cluster again with: ") + kExportCommand});
    return std::nullopt;
  }
  LoadedProfile loaded;
  loaded.path = input.path;
  try {
    loaded.document = nlohmann::json::parse(input.text, Keep);
  } catch (const nlohmann::json::parse_error& e) {
    const std::size_t at = e.byte == 0 ? 0 : e.byte - 1;
    std::string what = e.what();
    if (auto colon = what.find("syntax error"); colon != std::string::npos) what = what.substr(colon);
    sink.Report(Diagnostic{Severity::kError, LocationOfOffset(input.path, input.text, at), "",
                           "yaml.syntax", "the export is not valid JSON: " + what,
                           "a cut-off export? export the cluster again with: " +
                               std::string(kExportCommand)});
    return std::nullopt;
  } catch (const nlohmann::json::exception& e) {  // a number no double holds (1e999)
    sink.Report(Diagnostic{Severity::kError, SourceLocation{input.path, 1, 1}, "", "yaml.syntax",
                           std::string("the export is not valid JSON: ") + e.what(),
                           std::string("export the cluster again with: ") + kExportCommand});
    return std::nullopt;
  }
  if (!loaded.document.is_object()) {
    sink.Report(Diagnostic{Severity::kError, SourceLocation{input.path, 1, 1}, "",
                           "discover.not-an-object",
                           "the export is not a Kubernetes object or List",
                           std::string("export the cluster with: ") + kExportCommand});
    return std::nullopt;
  }
  return loaded;  // source lines: FillCitedSourceLines
}

}  // namespace

SourceLocation LocateInFile(const ExportSet& set, int file, const std::string& pointer) {
  const LoadedProfile& loaded = set.files[file];
  const std::string& text = set.texts[file];
  if (text.empty()) return loaded.locations.Find(pointer);
  std::size_t at = FindJsonPointer(text, pointer);
  if (at == std::string::npos) at = FindJsonPointer(text, "");
  return LocationOfOffset(loaded.path, text, at == std::string::npos ? 0 : at);
}

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

// Where each object of JSON file `f` starts, in one pass over the text: a List's items from one
// scan of its array (the usual export), others by pointer.
void LocateObjects(ExportSet& set, int f) {
  const std::string& text = set.texts[f];
  if (text.empty()) return;
  std::vector<std::size_t> items;
  const std::size_t array = FindJsonPointer(text, "/items");
  if (array != std::string::npos) items = ArrayElementOffsets(text, array);
  std::vector<ExportObject*> mine;
  for (ExportObject& object : set.objects) {
    if (object.file != f) continue;
    object.offset = std::string::npos;
    const std::string& ptr = object.pointer;
    if (ptr.rfind("/items/", 0) == 0 && ptr.find('/', 7) == std::string::npos) {
      const std::size_t index = std::stoul(ptr.substr(7));
      if (index < items.size()) object.offset = items[index];
    }
    if (object.offset == std::string::npos) object.offset = FindJsonPointer(text, ptr);
    if (object.offset == std::string::npos) object.offset = 0;
    mine.push_back(&object);
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
  for (ExportInput& input : inputs) {
    if (input.text.find_first_not_of(" \t\r\n") == std::string::npos) {
      // The loader would call it an empty profile; say what an export should hold instead.
      sink.Report(Diagnostic{Severity::kError, SourceLocation{input.path, 1, 1}, "",
                             "discover.empty", "the export is empty",
                             std::string("export the cluster with: ") + kExportCommand});
      continue;
    }
    const std::size_t first = input.text.find_first_not_of(" \t\r\n");
    if (input.text.size() > limits::kMaxExportBytes) {
      sink.Report(Diagnostic{Severity::kError, SourceLocation{input.path, 0, 0}, "",
                             "limit.file-size",
                             "the export is larger than " +
                                 std::to_string(limits::kMaxExportBytes >> 20) + " MiB",
                             "export only the types hkimgen reads: " + std::string(kExportCommand)});
      continue;
    }
    const bool json = input.text[first] == '{' || input.text[first] == '[';
    std::optional<LoadedProfile> loaded =
        json ? LoadJsonExport(input, sink) : LoadProfileFromText(input.path, input.text, sink);
    if (!loaded) continue;
    set.files.push_back(std::move(*loaded));
    set.texts.push_back(json ? std::move(input.text) : std::string());
  }
  // Objects point into set.files, so collect only once the vector has stopped growing.
  for (size_t f = 0; f < set.files.size(); ++f) {
    Collect(set.files[f].document, "", static_cast<int>(f), set, set.objects, sink);
  }
  for (size_t f = 0; f < set.files.size(); ++f) LocateObjects(set, static_cast<int>(f));
  return set;
}

}  // namespace hkim::discover

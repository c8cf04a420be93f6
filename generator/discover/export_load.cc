#include "discover/export_load.h"

namespace hkim::discover {

const char kExportCommand[] =
    "kubectl get nodes,sriovnetworknodestates,network-attachment-definitions,ippools -A -o json "
    "> cluster-export.json";

namespace {

std::string StringAt(const nlohmann::json& object, const char* a, const char* b = nullptr) {
  if (!object.is_object() || !object.contains(a)) return "";
  const nlohmann::json& first = object[a];
  if (b == nullptr) return first.is_string() ? first.get<std::string>() : "";
  if (!first.is_object() || !first.contains(b) || !first[b].is_string()) return "";
  return first[b].get<std::string>();
}

void Collect(const nlohmann::json& value, const std::string& pointer, int file,
             const LoadedProfile& loaded, std::vector<ExportObject>& out, DiagnosticSink& sink) {
  // kubectl prints several kinds as {"kind": "List", "items": [...]}; typed lists
  // ("NodeList") look the same. An object inside a list may itself be a list (several files
  // pasted into one): flatten recursively.
  if (value.is_object() && value.contains("items") && value["items"].is_array() &&
      StringAt(value, "kind").ends_with("List")) {
    const nlohmann::json& items = value["items"];
    for (size_t i = 0; i < items.size(); ++i) {
      Collect(items[i], pointer + "/items/" + std::to_string(i), file, loaded, out, sink);
    }
    return;
  }
  ExportObject object;
  object.kind = StringAt(value, "kind");
  object.name = StringAt(value, "metadata", "name");
  object.namespace_name = StringAt(value, "metadata", "namespace");
  if (object.kind.empty() || object.name.empty()) {
    sink.Report(Diagnostic{Severity::kWarning, loaded.locations.Find(pointer), pointer,
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

}  // namespace

SourceLocation ExportSet::Locate(const ExportObject& object, const std::string& pointer) const {
  return files[object.file].locations.Find(object.pointer + pointer);
}

ExportSet LoadExports(const std::vector<ExportInput>& inputs, DiagnosticSink& sink) {
  ExportSet set;
  for (const ExportInput& input : inputs) {
    if (input.text.find_first_not_of(" \t\r\n") == std::string::npos) {
      // The loader would call it an empty profile; say what an export should hold instead.
      sink.Report(Diagnostic{Severity::kError, SourceLocation{input.path, 1, 1}, "",
                             "discover.empty", "the export is empty",
                             std::string("export the cluster with: ") + kExportCommand});
      continue;
    }
    std::optional<LoadedProfile> loaded = LoadProfileFromText(input.path, input.text, sink);
    if (loaded) set.files.push_back(std::move(*loaded));
  }
  // Objects point into set.files, so collect only once the vector has stopped growing.
  for (size_t f = 0; f < set.files.size(); ++f) {
    Collect(set.files[f].document, "", static_cast<int>(f), set.files[f], set.objects, sink);
  }
  return set;
}

}  // namespace hkim::discover

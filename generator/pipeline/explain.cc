#include "pipeline/explain.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "schema/doc.h"

namespace hkim {
namespace {

using nlohmann::json;

std::string ParentPointer(const std::string& pointer) {
  const size_t slash = pointer.rfind('/');
  return slash == std::string::npos ? "" : pointer.substr(0, slash);
}

std::string LastToken(const std::string& pointer) {
  const size_t slash = pointer.rfind('/');
  std::string raw = slash == std::string::npos ? pointer : pointer.substr(slash + 1);
  std::string token;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '~' && i + 1 < raw.size()) {
      token += raw[i + 1] == '1' ? '/' : '~';
      ++i;
    } else {
      token += raw[i];
    }
  }
  return token;
}

std::string Where(const SourceLocation& at) {
  std::string out = at.file;
  if (at.line > 0) out += ":" + std::to_string(at.line);
  if (at.column > 0) out += ":" + std::to_string(at.column);
  return out;
}

}  // namespace

std::optional<Explanation> Explain(const LayeredProfile& layered, const ProfileSchema& schema,
                                   const std::string& path, DiagnosticSink& sink) {
  std::string error;
  std::optional<std::string> pointer = UserPathToPointer(path, layered.merged.document, &error);
  if (!pointer) {
    sink.Report(Diagnostic{Severity::kError,
                           {},
                           "",
                           "explain.bad-path",
                           "cannot explain '" + path + "': " + error,
                           error.find("past the end") != std::string::npos
                               ? "use an index below the list's length, or [name=X] for a named "
                                 "item"
                               : "write the path as --set takes it, e.g. "
                                 "network.rails[0].mtu_bytes or "
                                 "network.rails[name=eno5np0].ipam.range"});
    return std::nullopt;
  }
  const json* sub_schema = schema.SchemaFor(*pointer);
  if (sub_schema == nullptr) {
    const std::string parent = ParentPointer(*pointer);
    const std::string key = LastToken(*pointer);
    std::string fix = "see docs/profile-reference.md for the fields";
    if (schema.SchemaFor(parent) != nullptr) {
      std::string guess = ClosestMatch(key, schema.AllowedKeys(parent));
      if (!guess.empty()) {
        std::string parent_path = PointerToDotted(parent);
        fix = "did you mean '" + (parent_path.empty() ? "" : parent_path + ".") + guess + "'?";
      }
    }
    sink.Report(Diagnostic{Severity::kError,
                           {},
                           *pointer,
                           "explain.unknown-path",
                           "'" + path + "' is not a field of the profile schema",
                           fix});
    return std::nullopt;
  }
  Explanation e;
  e.path = path;
  e.pointer = *pointer;
  // Keywords beside a property's `$ref` (its own description) describe this use best.
  const json* described = sub_schema;
  if (const json* parent = schema.SchemaFor(ParentPointer(*pointer));
      parent != nullptr && parent->contains("properties") &&
      (*parent)["properties"].contains(LastToken(*pointer))) {
    described = &(*parent)["properties"][LastToken(*pointer)];
  }
  SchemaField field = DescribeSchema(schema.document(), *described, PointerToDotted(*pointer));
  e.type = field.type;
  e.constraints = field.constraints;
  e.description = field.description;
  if (!field.default_text.empty()) {
    e.has_default = true;
    e.default_value = json::parse(field.default_text);
  }
  try {
    const json& value = layered.merged.document.at(json::json_pointer(*pointer));
    e.is_set = true;
    e.value = value;
  } catch (const json::exception&) {
    e.is_set = false;
    e.value = e.has_default ? e.default_value : json();
  }
  auto origins = layered.origins.find(*pointer);
  if (e.is_set && origins != layered.origins.end()) {
    for (const ValueOrigin& origin : origins->second) {
      if (!e.set_by.empty() && e.set_by.back().file == origin.location.file &&
          e.set_by.back().line == origin.location.line) {
        continue;
      }
      e.set_by.push_back(origin.location);
    }
  }
  return e;
}

void AddDerivedValue(const Profile& p, Explanation& e) {
  if (e.is_set || e.has_default) return;
  // The model's own values (model/*.cc derive them); the words say from what, for people.
  struct Derived {
    const char* pointer;
    json value;
    std::string from;
  };
  const std::vector<Derived> table = {
      {"/gitops/argocd_namespace", p.gitops.argocd_namespace,
       "cluster.platform: openshift-gitops on OpenShift (OpenShift GitOps), argocd elsewhere"},
      {"/gitops/controller_service_account", p.gitops.controller_service_account,
       "the account Argo CD writes with: <argocd_namespace>-argocd-application-controller on its "
       "own cluster, argocd-manager (kube-system) on a remote destination"},
      {"/gitops/destination_namespace", p.gitops.destination_namespace,
       "the profile's first namespace"},
      {"/gitops/platform_project", p.gitops.platform_project, "gitops.project"},
      {"/gitops/workload_project", p.gitops.workload_project, "gitops.project"},
      {"/security/scc_name", p.security.scc_name, "cluster.name + \"-nccl-rdma\""},
      {"/fabric_health/periodic/enabled", p.fabric_health.periodic.enabled,
       "workload.mode: on for an RDMA pool, off in tcp mode"},
  };
  for (const Derived& d : table) {
    if (e.pointer != d.pointer) continue;
    e.derived = true;
    e.value = d.value;
    e.derived_from = d.from;
  }
}

namespace {

// A map key as YAML writes it: plain when it is a plain name (nvidia.com/gpu.product), else
// quoted.
std::string YamlKey(const std::string& key) {
  const bool plain = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' ||
           c == '/';
  });
  return plain ? key : json(key).dump();
}

// A list or map as YAML block lines (no indent of their own): one entry a line, a map inside a
// list starting on its dash line. Scalars are written as JSON, which YAML reads alike.
std::vector<std::string> BlockLines(const json& value) {
  std::vector<std::string> lines;
  const bool list = value.is_array();
  for (auto it = value.begin(); it != value.end(); ++it) {
    const std::string head = list ? "-" : YamlKey(it.key()) + ":";
    if (!it->is_structured() || it->empty()) {
      lines.push_back(head + " " + it->dump());
      continue;
    }
    const std::vector<std::string> inner = BlockLines(*it);
    if (list && it->is_object()) {
      for (size_t i = 0; i < inner.size(); ++i) lines.push_back((i == 0 ? "- " : "  ") + inner[i]);
    } else {
      lines.push_back(head);
      for (const std::string& line : inner) lines.push_back("  " + line);
    }
  }
  return lines;
}

// The value after "PATH =", then `label` ("(default)"): a scalar or an empty collection on that
// line, a list or map below it, one entry a line.
void WriteValue(std::ostringstream& out, const json& value, const std::string& label) {
  if (!value.is_structured() || value.empty()) {
    out << ' ' << value.dump() << (label.empty() ? "" : "   " + label) << '\n';
    return;
  }
  out << (label.empty() ? "" : " " + label) << '\n';
  for (const std::string& line : BlockLines(value)) out << "    " << line << '\n';
}

}  // namespace

std::string FormatExplanation(const Explanation& e) {
  std::ostringstream out;
  const std::string shown = PointerToDotted(e.pointer);
  out << (shown.empty() ? "(profile)" : shown) << " =";
  if (e.is_set) {
    WriteValue(out, e.value, "");
  } else if (e.has_default) {
    WriteValue(out, e.default_value, "(default)");
  } else if (e.derived) {
    WriteValue(out, e.value, "(derived)");
  } else {
    out << " (not set)\n";
  }
  if (e.is_set) {
    for (size_t i = 0; i < e.set_by.size(); ++i) {
      out << (i == 0 ? "  set by  " : "          ") << Where(e.set_by[i]);
      if (i + 1 == e.set_by.size() && e.set_by.size() > 1) out << "   (final)";
      out << '\n';
    }
  } else if (e.derived) {
    out << "  set by  hkimgen, from " << e.derived_from << '\n';
  } else {
    out << "  set by  default"
        << (e.has_default ? " (the schema's)" : " (none: hkimgen derives it or leaves it out)")
        << '\n';
  }
  if (e.has_default && e.is_set) out << "  default " << e.default_value.dump() << '\n';
  out << "  type    " << e.type;
  if (!e.constraints.empty()) out << "; " << e.constraints;
  out << '\n';
  if (!e.description.empty()) out << "  about   " << e.description << '\n';
  return out.str();
}

json ExplanationToJson(const Explanation& e) {
  json set_by = json::array();
  for (const SourceLocation& at : e.set_by) {
    set_by.push_back({{"file", at.file}, {"line", at.line}, {"column", at.column}});
  }
  return {{"path", e.path},
          {"pointer", e.pointer},
          {"set", e.is_set},
          {"value", e.value},
          {"default", e.has_default ? e.default_value : json()},
          {"set_by", set_by},
          {"derived_from", e.derived ? json(e.derived_from) : json()},
          {"type", e.type},
          {"constraints", e.constraints},
          {"description", e.description}};
}

}  // namespace hkim

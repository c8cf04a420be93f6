// Model part of fabric-aware placement: `scheduling` -> Profile::scheduling (defaults from the
// schema and the platform; see model/scheduling.h).

#include "model/scheduling.h"

#include <algorithm>
#include <cstdio>

#include "model/checks.h"
#include "model/operator_versions.h"
#include "model/model.h"

namespace hkim {

using nlohmann::json;

const char* ToString(TopologyPlacement value) {
  return value == TopologyPlacement::kRequired ? "required" : "preferred";
}

std::optional<std::string> KueueApiVersion(const std::string& kueue_version) {
  int major = 0, minor = 0, patch = 0;
  const char* text = kueue_version.c_str() + (kueue_version.rfind('v', 0) == 0 ? 1 : 0);
  if (std::sscanf(text, "%d.%d.%d", &major, &minor, &patch) != 3) return std::nullopt;
  if (major == 0 && minor < 14) return std::nullopt;
  // A release of the catalog: the newest version its CRDs serve (read at its tag).
  if (const auto release = FindKueueRelease(kueue_version); release && !release->served.empty())
    return "kueue.x-k8s.io/" + release->served.back();
  if (major == 0 && minor == 14) return std::string("kueue.x-k8s.io/v1beta1");
  return std::string("kueue.x-k8s.io/v1beta2");
}

namespace {

std::string Text(const json& object, const char* key, const std::string& fallback) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : fallback;
}

}  // namespace

int ReadScheduling(const json* section, const LoadedProfile& loaded, DiagnosticSink& sink,
                   Profile& profile) {
  // scheduling.kueue: the profile's queues, read here; Kueue itself is operators.kueue.
  const char* kueue_field = "kueue";  // not an operator key: the scheduling section's field
  if (section == nullptr || !section->is_object() || !section->contains(kueue_field)) return 0;
  const json& k = (*section)[kueue_field];
  KueueScheduling out;
  int errors = 0;
  auto error = [&](const std::string& pointer, const std::string& rule, const std::string& message,
                   const std::string& fix) {
    ReportModelError(loaded, sink, pointer, rule, message, fix);
    ++errors;
  };
  const bool oke = profile.platform == Platform::kOke;
  if (auto it = k.find("levels"); it != k.end() && it->is_array()) {
    out.levels_set = true;
    for (const json& level : *it)
      if (level.is_string()) out.levels.push_back(level.get<std::string>());
  } else if (oke) {
    out.levels = {kOciHpcIslandLabel, kOciNetworkBlockLabel, kOciLocalBlockLabel, kHostnameLabel};
  } else {
    error(out.pointer, "model.scheduling-levels",
          "scheduling.kueue names no topology levels, and only OKE has default ones (OCI's RDMA "
          "labels)",
          "name the node labels outermost first, e.g. levels: [topology.example.com/rack, "
          "kubernetes.io/hostname], and declare the rack label in preconditions (kind node-label)");
  }
  out.level = Text(k, "level", "");
  if (out.level.empty() && !out.levels.empty()) {
    const bool oci = std::find(out.levels.begin(), out.levels.end(), kOciNetworkBlockLabel) !=
                     out.levels.end();
    out.level = oke && oci ? kOciNetworkBlockLabel : out.levels.front();
  }
  if (!out.levels.empty() &&
      std::find(out.levels.begin(), out.levels.end(), out.level) == out.levels.end()) {
    error(out.pointer + "/level", "model.scheduling-level",
          "scheduling.kueue.level '" + out.level + "' is not one of scheduling.kueue.levels",
          "name one of the levels (" + out.levels.front() + ", ...), or add it to levels");
  }
  out.placement = Text(k, "placement", "required") == "preferred" ? TopologyPlacement::kPreferred
                                                                 : TopologyPlacement::kRequired;
  out.queue = Text(k, "queue", profile.workload.name);
  out.cluster_queue = Text(k, "cluster_queue", profile.cluster_name);

  const Kueue defaults;
  const Kueue* installed =
      profile.operators && profile.operators->kueue ? &*profile.operators->kueue : nullptr;
  const std::string version = installed ? installed->version : defaults.version;
  const std::string version_pointer =
      installed ? installed->pointer + "/version" : std::string("/operators");
  if (auto api = KueueApiVersion(version)) {
    out.api_version = *api;
  } else {
    error(version_pointer, "model.kueue-version",
          "Kueue " + version + " has no topology-aware scheduling on by default (beta from v0.14)",
          "pin Kueue v0.14 or later in operators.kueue.version (v0.19.2: the release the upstream "
          "schemas are taken from)");
  }
  if (installed && installed->managed() && profile.IsOpenShift()) {
    error(installed->pointer + "/install", "model.kueue-install",
          "operators.kueue: managed is not rendered on OpenShift: the Red Hat build of Kueue "
          "operator (OLM package kueue-operator) needs cert-manager and a Kueue CR that enables "
          "the Pod and StatefulSet frameworks, which the bundle does not render yet",
          "install the Red Hat build of Kueue with the Pod and StatefulSet frameworks enabled and "
          "set operators.kueue.install: preinstalled");
  }
  profile.scheduling.kueue = std::move(out);
  return errors;
}

}  // namespace hkim

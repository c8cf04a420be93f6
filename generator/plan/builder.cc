// Plan stages' shared builder: file names and the metadata context of every object.

#include "plan/builder.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "plan/disruption.h"
#include "plan/health.h"

namespace hkim::plan {
namespace {

using nlohmann::json;

constexpr const char* kSkipDryRun = "SkipDryRunOnMissingResource=true";

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string FileName(const std::string& layer, int wave, const std::string& kind,
                     const std::string& namespace_name, const std::string& name) {
  char prefix[8];
  std::snprintf(prefix, sizeof prefix, "%02d", wave * 10);
  std::string file = layer + "/" + prefix + "-" + Lower(kind) + "-";
  if (!namespace_name.empty()) file += namespace_name + "-";
  file += name + ".yaml";
  // ClusterRole names like hkimgen:<cluster>:<purpose> make poor file names (Windows, URLs).
  std::replace(file.begin(), file.end(), ':', '-');
  return file;
}

// The metadata every template prints: name, namespace, labels, Argo CD annotations.
json Metadata(const PlannedObject& object, const Profile& profile, bool skip_dry_run,
              bool keep_on_removal) {
  json meta;
  meta["name"] = object.name;
  if (!object.namespace_name.empty()) meta["namespace"] = object.namespace_name;
  meta["sync_wave"] = std::to_string(object.sync_wave);
  meta["skip_dry_run"] = skip_dry_run;
  meta["skip_dry_run_option"] = kSkipDryRun;
  std::string options = skip_dry_run ? kSkipDryRun : "";
  if (keep_on_removal) options += std::string(options.empty() ? "" : ",") + "Prune=false,Delete=false";
  meta["has_sync_options"] = !options.empty();
  meta["sync_options"] = options;
  meta["part_of"] = profile.cluster_name;
  return meta;
}

}  // namespace

PlannedObject& PlanBuilder::Add(const std::string& template_name, const std::string& api_version,
                                const std::string& kind, const std::string& name,
                                const std::string& namespace_name, int wave, bool skip_dry_run,
                                bool keep_on_removal) {
  return AddPlannedObject(plan_, profile_, template_name, api_version, kind, name, namespace_name,
                          wave, skip_dry_run, keep_on_removal);
}

}  // namespace hkim::plan

namespace hkim {

PlannedObject& AddPlannedObject(BundlePlan& plan, const Profile& profile,
                                const std::string& template_name, const std::string& api_version,
                                const std::string& kind, const std::string& name,
                                const std::string& namespace_name, int wave, bool skip_dry_run,
                                bool keep_on_removal) {
  using plan::FileName;
  using plan::Metadata;
  PlannedObject object;
  object.template_name = template_name;
  object.api_version = api_version;
  object.kind = kind;
  object.name = name;
  object.namespace_name = namespace_name;
  object.sync_wave = wave;
  const auto& workload = profile.namespaces;
  // What can drain, reboot or roll a driver syncs in its own Application (plan/disruption.h).
  object.layer = TouchesNodes(WorstDisruptionOf(kind, template_name)) ? kNodesLayer
                 : std::find(workload.begin(), workload.end(), namespace_name) != workload.end()
                     ? kWorkloadLayer
                 : IsFabricHealthNamespace(profile, namespace_name) ? kHealthLayer
                                                                    : kPlatformLayer;
  object.file_name = FileName(object.layer, wave, kind, namespace_name, name);
  object.context["metadata"] = Metadata(object, profile, skip_dry_run, keep_on_removal);
  // Every object needs its kind to exist (core kinds are the platform's: closure.cc).
  Needs(object, CapabilityKind::kCrd, CrdName(api_version, kind), "",
        "the API kind " + kind + " of " + api_version);
  plan.objects.push_back(std::move(object));
  return plan.objects.back();
}

}  // namespace hkim

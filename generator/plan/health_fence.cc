// Plan stage of the fabric-health family, the fence: a ValidatingAdmissionPolicy and its binding
// (templates/admission/) that let the health check's service account change only the marks it
// writes (the label, its annotations, the one taint where the profile consents), and only on the
// nodes of the profile's pool. RBAC grants `patch nodes` whole; the policy narrows it.

#include <algorithm>
#include <iterator>
#include <map>

#include "plan/cel_text.h"
#include "plan/health.h"

namespace hkim {

std::vector<std::string> NodeMarkingUsers(const Profile& p) {
  return {"system:serviceaccount:" + HealthNamespace(p) + ":" + HealthServiceAccount(p)};
}

std::string HealthNodeFenceName(const Profile& p) {
  return "hkimgen-" + p.cluster_name + "-fabric-health-node-marks";
}

void PlanHealthNodeFence(const Profile& p, int wave, BundlePlan& plan) {
  const std::string name = HealthNodeFenceName(p);
  PlannedObject& policy = AddPlannedObject(
      plan, p, "admission/validatingadmissionpolicy.yaml.mustache",
      "admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy", name, "", wave, false);
  nlohmann::json users = nlohmann::json::array();
  for (const std::string& user : NodeMarkingUsers(p)) users.push_back({{"name", user}, {"last", false}});
  if (!users.empty()) users.back()["last"] = true;
  policy.context["users"] = users;
  // The policy's data as CEL expressions; the template quotes each as one YAML scalar.
  policy.context["mark_label"] = CelString(kHealthLabel);
  policy.context["mark_annotations"] = CelList(
      {std::begin(kHealthMarkAnnotations), std::end(kHealthMarkAnnotations)});
  policy.context["pool_selector"] = CelMap(p.node_shape.node_selector);
  // Sorted: the policy does not change when the profile reorders its lists.
  std::vector<std::string> exclude = p.node_shape.exclude_nodes;
  std::vector<std::string> include = p.node_shape.include_nodes;
  std::sort(exclude.begin(), exclude.end());
  std::sort(include.begin(), include.end());
  policy.context["exclude_nodes"] = CelList(exclude);
  policy.context["include_nodes"] = CelList(include);
  policy.context["taint_consent"] = p.fabric_health.periodic.taint ? "true" : "false";
  PlannedObject& binding = AddPlannedObject(
      plan, p, "admission/validatingadmissionpolicybinding.yaml.mustache",
      "admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding", name, "", wave,
      false);
  binding.context["policy"] = name;
}

}  // namespace hkim

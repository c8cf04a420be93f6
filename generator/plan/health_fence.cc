// Plan stage of the fabric-health family, the fence: a ValidatingAdmissionPolicy and its binding
// (templates/admission/) that let the health check's service accounts change only the
// hkimgen.io/ labels, annotations and taints of a Node. RBAC grants `patch nodes` whole; the
// policy narrows it to the marks the check writes (issue 37).

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
  policy.context["prefix"] = "hkimgen.io/";
  PlannedObject& binding = AddPlannedObject(
      plan, p, "admission/validatingadmissionpolicybinding.yaml.mustache",
      "admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding", name, "", wave,
      false);
  binding.context["policy"] = name;
}

}  // namespace hkim

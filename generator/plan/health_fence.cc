// Plan stage of the fabric-health family, the fence: a ValidatingAdmissionPolicy and its binding
// (templates/admission/) that let the health check's service account change only the marks it
// writes (the label, its annotations, the one taint where the profile consents), and only on the
// nodes of the profile's pool. RBAC grants `patch nodes` whole; the policy narrows it.

#include <algorithm>
#include <iterator>
#include <map>

#include "plan/health.h"

namespace hkim {

// A CEL string literal: single-quoted, with backslash, quote and control bytes escaped, so that
// no profile value can end the literal or change the expression.
std::string CelQuoted(const std::string& text) {
  static const char kHex[] = "0123456789abcdef";
  std::string out = "'";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\\' || c == '\'') {
      out += '\\';
      out += c;
    } else if (byte < 0x20 || byte == 0x7f) {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string CelListOf(const std::vector<std::string>& items) {
  std::string out = "[";
  for (const std::string& item : items) out += (out.size() > 1 ? ", " : "") + CelQuoted(item);
  return out + "]";
}

std::string CelMapOf(const std::map<std::string, std::string>& entries) {
  std::string out = "{";
  for (const auto& [key, value] : entries)
    out += (out.size() > 1 ? ", " : "") + CelQuoted(key) + ": " + CelQuoted(value);
  return out + "}";
}

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
  policy.context["mark_label"] = CelQuoted(kHealthLabel);
  policy.context["mark_annotations"] = CelListOf(
      {std::begin(kHealthMarkAnnotations), std::end(kHealthMarkAnnotations)});
  policy.context["pool_selector"] = CelMapOf(p.node_shape.node_selector);
  SetFencedNodeLists(p, policy);
  policy.context["taint_consent"] = p.fabric_health.periodic.taint ? "true" : "false";
  PlanFenceBinding(p, name, wave, plan);
}

void SetFencedNodeLists(const Profile& p, PlannedObject& policy) {
  std::vector<std::string> exclude = p.node_shape.exclude_nodes;
  std::vector<std::string> include = p.node_shape.include_nodes;
  std::sort(exclude.begin(), exclude.end());
  std::sort(include.begin(), include.end());
  policy.context["exclude_nodes"] = CelListOf(exclude);
  policy.context["include_nodes"] = CelListOf(include);
}

void PlanFenceBinding(const Profile& p, const std::string& name, int wave, BundlePlan& plan) {
  PlannedObject& binding = AddPlannedObject(
      plan, p, "admission/validatingadmissionpolicybinding.yaml.mustache",
      "admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding", name, "", wave,
      false);
  binding.context["policy"] = name;
}

}  // namespace hkim

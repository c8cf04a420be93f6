#include "plan/likely_templates.h"

namespace hkim {

const std::vector<std::string>& LikelyTemplates() {
  static const std::vector<std::string> names = {
      "admission/validatingadmissionpolicy.yaml.mustache",
      "admission/validatingadmissionpolicybinding.yaml.mustache",
      "health/clusterrole.yaml.mustache",
      "health/clusterrolebinding.yaml.mustache",
      "health/priorityclass.yaml.mustache",
      "common/nad.yaml.mustache",
      "common/serviceaccount.yaml.mustache",
      "common/configmap-nccl-env.yaml.mustache",
      "common/service.yaml.mustache",
      "common/statefulset.yaml.mustache",
      "health/cronjob.yaml.mustache",
      "common/kustomization.yaml.mustache",
      "common/application.yaml.mustache",
      "common/application-layer.yaml.mustache",
      "bundle/README.md.mustache",
  };
  return names;
}

}  // namespace hkim

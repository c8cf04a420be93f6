#pragma once
// The Pod operations of the night coordinator over KubeClient, in its own namespace only: create
// a check pod, list the pods of one run by label, delete one. Its Role grants create, get, list
// and delete on pods of that namespace and nothing else.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kube_api.h"

namespace hkim::health {

/// POST /api/v1/namespaces/<ns>/pods. Returns "" and the created pod's name in `*name`, or the
/// error.
std::string CreatePod(const KubeClient& client, const std::string& ns, const nlohmann::json& pod,
                      std::string* name);

/// GET /api/v1/namespaces/<ns>/pods?labelSelector=<selector>: the items, or the error.
bool ListPods(const KubeClient& client, const std::string& ns, const std::string& selector,
              std::vector<nlohmann::json>* pods, std::string* error);

/// DELETE /api/v1/namespaces/<ns>/pods/<name>. "" when deleted or already gone, else the error.
std::string DeletePod(const KubeClient& client, const std::string& ns, const std::string& name);

}  // namespace hkim::health

#pragma once
// The Node operations of hkim-health over KubeClient: read one node, list the node group, and
// write the health mark (retrying on 409 Conflict with a fresh read). Its ClusterRole grants
// get, list and patch on nodes and nothing else.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kube_api.h"
#include "node_mark.h"

namespace hkim::health {

/// A node read, or why not.
struct NodeRead {
  bool ok = false;
  nlohmann::json node;
  std::string error;  ///< "GET /api/v1/nodes/x: 403 ..." with the server's message
};

/// GET /api/v1/nodes/<name>.
NodeRead GetNode(const KubeClient& client, const std::string& name);

/// GET /api/v1/nodes?labelSelector=<selector>: the items, or the error.
bool ListNodes(const KubeClient& client, const std::string& selector,
               std::vector<nlohmann::json>* nodes, std::string* error);

/// Writes `mark` on node `name` (MarkPatch on a fresh read; up to 3 tries on 409). Returns
/// "" on success, else the error. `effect` (optional) gets MarkEffect of the node as read.
std::string WriteMark(const KubeClient& client, const std::string& name, const NodeMark& mark,
                      std::string* effect = nullptr);

}  // namespace hkim::health

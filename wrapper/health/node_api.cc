#include "node_api.h"

#include "text_cut.h"

namespace hkim::health {
namespace {

using nlohmann::json;

constexpr const char* kNodeRights = "the ClusterRole must allow get, list, patch on nodes";

std::string Describe(const std::string& what, const ApiResponse& response) {
  return DescribeFailure(what, response, kNodeRights);
}

}  // namespace

NodeRead GetNode(const KubeClient& client, const std::string& name) {
  NodeRead read;
  const std::string path = "/api/v1/nodes/" + QueryEscape(name);
  const ApiResponse response = client.Get(path);
  if (!response.ok()) {
    read.error = Describe("GET " + path, response);
    return read;
  }
  read.node = json::parse(response.body, nullptr, false);
  if (!read.node.is_object()) {
    read.error = "GET " + path + ": the answer is not a JSON object";
    return read;
  }
  read.ok = true;
  return read;
}

bool ListNodes(const KubeClient& client, const std::string& selector,
               std::vector<json>* nodes, std::string* error) {
  std::string path = "/api/v1/nodes";
  if (!selector.empty()) path += "?labelSelector=" + QueryEscape(selector);
  json items;
  if (!GetListItems(client, path, "NodeList", kNodeRights, &items, error)) return false;
  for (json& item : items) nodes->push_back(std::move(item));
  return true;
}

std::string WriteMark(const KubeClient& client, const std::string& name, const NodeMark& mark,
                      std::string* effect) {
  const std::string path = "/api/v1/nodes/" + QueryEscape(name);
  std::string last_error;
  for (int attempt = 0; attempt < 3; ++attempt) {
    const NodeRead read = GetNode(client, name);
    if (!read.ok) return read.error;
    std::string patch;
    try {  // a Node of an unexpected shape is an error to report, never an abort
      if (effect != nullptr) *effect = MarkEffect(read.node, mark);
      patch = DumpJson(MarkPatch(read.node, mark));
    } catch (const nlohmann::json::exception& error) {
      return "node " + name + " has an unexpected shape: " + error.what();
    }
    const ApiResponse response = client.Patch(path, patch, "application/merge-patch+json");
    if (response.ok()) return "";
    last_error = Describe("PATCH " + path, response);
    if (response.status != 409) return last_error;
  }
  return last_error + " (gave up after 3 tries)";
}

}  // namespace hkim::health

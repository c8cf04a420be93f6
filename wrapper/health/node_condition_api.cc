// The API half of node_condition.h (WriteCondition, PostNodeEvent): apart from the pure half so
// that the fuzzers, which cannot link the HTTP client, compile node_condition.cc alone.

#include "json_fields.h"
#include "node_condition.h"
#include "text_cut.h"

namespace hkim::health {
namespace {

using nlohmann::json;

constexpr const char* kStatusRights =
    "the ClusterRole must allow get on nodes and patch on nodes/status";
constexpr size_t kMaxMessageBytes = 2000;

}  // namespace

std::string WriteCondition(const KubeClient& client, const std::string& name,
                           const ConditionUpdate& update, std::string* status) {
  const std::string node_path = "/api/v1/nodes/" + QueryEscape(name);
  const std::string path = node_path + "/status";
  std::string last_error;
  for (int attempt = 0; attempt < 3; ++attempt) {
    const ApiResponse read = client.Get(node_path);
    if (!read.ok()) return DescribeFailure("GET " + node_path, read, kStatusRights);
    const json node = json::parse(read.body, nullptr, false);
    if (!node.is_object()) return "GET " + node_path + ": the answer is not a JSON object";
    std::string body;
    try {  // a Node of an unexpected shape is an error to report, never an abort
      const json patch = ConditionPatch(node, update);
      if (status != nullptr) *status = patch["status"]["conditions"][0]["status"];
      body = DumpJson(patch);
    } catch (const json::exception& error) {
      return "node " + name + " has an unexpected shape: " + error.what();
    }
    const ApiResponse response =
        client.Patch(path, body, "application/strategic-merge-patch+json");
    if (response.ok()) return "";
    last_error = DescribeFailure("PATCH " + path, response, kStatusRights);
    if (response.status != 409) return last_error;
  }
  return last_error + " (gave up after 3 tries)";
}

std::string PostNodeEvent(const KubeClient& client, const std::string& ns, const std::string& name,
                          const std::string& reason, const std::string& message, bool warning,
                          const std::string& time) {
  const json event = {
      {"apiVersion", "v1"},
      {"kind", "Event"},
      {"metadata", {{"generateName", CutUtf8(name, 200) + ".rdmafabric."}, {"namespace", ns}}},
      {"involvedObject", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", name}, {"uid", name}}},
      {"reason", reason},
      {"message", CutUtf8(message, kMaxMessageBytes)},
      {"type", warning ? "Warning" : "Normal"},
      {"source", {{"component", "hkim-health"}, {"host", name}}},
      {"firstTimestamp", time},
      {"lastTimestamp", time},
      {"count", 1}};
  const std::string path = "/api/v1/namespaces/" + QueryEscape(ns) + "/events";
  const ApiResponse response = client.Post(path, DumpJson(event));
  if (response.ok()) return "";
  return DescribeFailure("POST " + path, response,
                         "the Role must allow create on events in " + ns);
}

}  // namespace hkim::health

#include "pod_api.h"

namespace hkim::health {
namespace {

using nlohmann::json;

constexpr const char* kPodRights =
    "the health Role must allow create, get, list, delete on pods of its namespace";

std::string PodsPath(const std::string& ns) {
  return "/api/v1/namespaces/" + QueryEscape(ns) + "/pods";
}

}  // namespace

std::string CreatePod(const KubeClient& client, const std::string& ns, const json& pod,
                      std::string* name) {
  const std::string path = PodsPath(ns);
  const ApiResponse response =
      client.Post(path, pod.dump(-1, ' ', false, json::error_handler_t::replace));
  if (!response.ok()) return DescribeFailure("POST " + path, response, kPodRights);
  const json created = json::parse(response.body, nullptr, false);
  const json::json_pointer at("/metadata/name");
  if (!created.is_object() || !created.contains(at) || !created[at].is_string())
    return "POST " + path + ": the answer names no pod";
  *name = created[at].get<std::string>();
  return "";
}

bool ListPods(const KubeClient& client, const std::string& ns, const std::string& selector,
              std::vector<json>* pods, std::string* error) {
  const std::string path = PodsPath(ns) + "?labelSelector=" + QueryEscape(selector);
  json items;
  if (!GetListItems(client, path, "PodList", kPodRights, &items, error)) return false;
  for (json& item : items)
    if (item.is_object()) pods->push_back(std::move(item));
  return true;
}

std::string DeletePod(const KubeClient& client, const std::string& ns, const std::string& name) {
  const std::string path = PodsPath(ns) + "/" + QueryEscape(name);
  const ApiResponse response = client.Delete(path);
  if (response.ok() || response.status == 404) return "";
  return DescribeFailure("DELETE " + path, response, kPodRights);
}

}  // namespace hkim::health

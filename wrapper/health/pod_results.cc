#include "pod_results.h"

#include <set>

#include "json_fields.h"
#include "text_cut.h"

namespace hkim::health {
namespace {

using nlohmann::json;

constexpr const char* kNoSuspect = "fabric check failed, no suspect: ";

std::string NodeToken(const std::string& line, size_t start, const char* stop) {
  const size_t end = line.find_first_of(stop, start);
  if (end == std::string::npos || end == start) return "";
  return CutUtf8(line.substr(start, end - start), 253);
}

bool Ready(const json& pod) {
  const json& conditions = Field(Field(pod, "status"), "conditions");
  if (!conditions.is_array()) return false;
  for (const json& c : conditions)
    if (StringField(c, "type") == "Ready" && StringField(c, "status") == "True") return true;
  return false;
}

}  // namespace

std::map<std::string, std::vector<std::string>> SuspectLinesByNode(const std::string& message) {
  std::map<std::string, std::vector<std::string>> out;
  size_t start = 0;
  while (start < message.size()) {
    size_t end = message.find('\n', start);
    if (end == std::string::npos) end = message.size();
    const std::string line = message.substr(start, end - start);
    start = end + 1;
    std::string node;
    if (line.rfind("node ", 0) == 0) node = NodeToken(line, 5, " :");
    else if (line.rfind(kNoSuspect, 0) == 0) node = NodeToken(line, std::string(kNoSuspect).size(), ":");
    if (!node.empty()) out[node].push_back(CutUtf8(line, 400));
  }
  return out;
}

std::map<std::string, PodVerdict> PodVerdicts(const std::vector<json>& pods) {
  std::map<std::string, std::set<std::string>> lines;
  std::set<std::string> passed;
  for (const json& pod : pods) {
    const std::string node = StringField(Field(pod, "spec"), "nodeName");
    if (!node.empty() && Ready(pod)) passed.insert(node);
    const json& statuses = Field(Field(pod, "status"), "containerStatuses");
    if (!statuses.is_array()) continue;
    for (const json& status : statuses) {
      for (const char* when : {"state", "lastState"}) {
        const std::string message =
            StringField(Field(Field(status, when), "terminated"), "message");
        for (const auto& [named, found] : SuspectLinesByNode(message))
          lines[named].insert(found.begin(), found.end());
      }
    }
  }
  std::map<std::string, PodVerdict> out;
  for (const std::string& node : passed) out[node].clear = true;
  for (const auto& [node, found] : lines) {
    PodVerdict& verdict = out[node];
    verdict.clear = false;
    for (const std::string& line : found)
      verdict.issue += (verdict.issue.empty() ? "" : "; ") + line;
  }
  return out;
}

}  // namespace hkim::health

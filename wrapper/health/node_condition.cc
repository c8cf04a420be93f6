#include "node_condition.h"

#include <cstdio>

#include "json_fields.h"
#include "text_cut.h"

namespace hkim::health {
namespace {

using nlohmann::json;

constexpr const char* kSeparator = " | ";
// A condition message is read by people and tools; keep it short enough for both.
constexpr size_t kMaxPartBytes = 700;
constexpr size_t kMaxMessageBytes = 2000;

bool WriterName(const std::string& text) {
  return !text.empty() && text.size() <= 16 &&
         text.find_first_not_of("abcdefghijklmnopqrstuvwxyz") == std::string::npos;
}

// A part's text: one line, and no '|' (the separator stays unambiguous when read back).
std::string Clean(const std::string& text) {
  std::string out = text;
  for (char& c : out) {
    if (c == '|') c = '/';
    if (c == '\n' || c == '\r') c = ' ';
  }
  return CutUtf8(out, kMaxPartBytes);
}

}  // namespace

std::map<std::string, std::string> ParseConditionParts(const std::string& message) {
  std::map<std::string, std::string> parts;
  size_t start = 0;
  while (start < message.size()) {
    size_t end = message.find(kSeparator, start);
    if (end == std::string::npos) end = message.size();
    const std::string piece = message.substr(start, end - start);
    const size_t colon = piece.find(": ");
    const std::string writer = colon == std::string::npos ? "" : piece.substr(0, colon);
    if (WriterName(writer) && writer != "other" && colon + 2 < piece.size()) {
      std::string& part = parts[writer];
      part += (part.empty() ? "" : " / ") + piece.substr(colon + 2);
    } else if (!piece.empty()) {
      std::string& other = parts["other"];
      other += (other.empty() ? "" : " / ") + piece;
    }
    start = end + 3;
  }
  return parts;
}

std::string ComposeConditionMessage(const std::map<std::string, std::string>& parts) {
  std::string out;
  for (const auto& [writer, text] : parts) {
    if (text.empty()) continue;
    out += (out.empty() ? "" : kSeparator) + writer + ": " + Clean(text);
  }
  return CutUtf8(out, kMaxMessageBytes);
}

json CurrentCondition(const json& node) {
  const json& conditions = Field(Field(node, "status"), "conditions");
  if (!conditions.is_array()) return nullptr;
  for (const json& condition : conditions)
    if (condition.is_object() && StringField(condition, "type") == kConditionType) return condition;
  return nullptr;
}

json ConditionPatch(const json& node, const ConditionUpdate& update) {
  const json current = CurrentCondition(node);
  std::map<std::string, std::string> parts;
  if (!current.is_null() && StringField(current, "reason") == kReasonHasIssues)
    parts = ParseConditionParts(StringField(current, "message"));
  // "other" is text no writer owns (an edit by hand): it does not keep the node unhealthy.
  parts.erase("other");
  parts.erase(update.writer);
  if (!update.issue.empty()) parts[update.writer] = update.issue;
  const bool issues = !parts.empty();
  const std::string status = issues ? "True" : "False";
  const std::string old_status = current.is_null() ? "" : StringField(current, "status");
  const std::string old_transition =
      current.is_null() ? "" : StringField(current, "lastTransitionTime");
  json condition = {
      {"type", kConditionType},
      {"status", status},
      {"reason", issues ? kReasonHasIssues : kReasonHasNoIssues},
      {"message", issues ? ComposeConditionMessage(parts) : Clean(update.healthy_note)},
      {"lastHeartbeatTime", update.time},
      {"lastTransitionTime",
       old_status == status && !old_transition.empty() ? old_transition : update.time}};
  json patch = {{"status", {{"conditions", json::array({condition})}}}};
  const std::string version = StringField(Field(node, "metadata"), "resourceVersion");
  if (!version.empty()) patch["metadata"]["resourceVersion"] = version;
  return patch;
}

bool ParseUtcTime(const std::string& text, std::time_t* out) {
  int y, mo, d, h, mi, s, n = 0;
  if (text.size() < 20 || text.size() > 40) return false;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &s, &n) != 6 ||
      n != 19)
    return false;
  size_t i = 19;
  if (text[i] == '.') {
    ++i;
    const size_t digits = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    if (i == digits) return false;
  }
  if (i + 1 != text.size() || text[i] != 'Z') return false;
  if (y < 1970 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
      s > 60 || h < 0 || mi < 0 || s < 0)
    return false;
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  *out = ::timegm(&tm);
  return true;
}

ConditionView ReadFabricCondition(const json& node, std::time_t now, double heartbeat_s) {
  ConditionView view;
  const json current = CurrentCondition(node);
  if (current.is_null()) return view;
  view.message = StringField(current, "message");
  std::time_t beat = 0;
  if (ParseUtcTime(StringField(current, "lastHeartbeatTime"), &beat))
    view.age_s = static_cast<double>(now - beat);
  const std::string status = StringField(current, "status");
  if (view.age_s < 0 || view.age_s > heartbeat_s ||
      (status != "True" && status != "False")) {
    view.stale = true;
    view.reason = kReasonStale;
    return view;
  }
  view.status = status;
  view.reason = StringField(current, "reason");
  return view;
}

}  // namespace hkim::health

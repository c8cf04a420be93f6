#include "commands/acceptance.h"

#include <algorithm>
#include <map>

#include "commands/rule_ids.h"
#include "schema/profile_schema.h"

namespace hkim {
namespace {

// Checks that `rule` can be accepted; reports at `where` when not.
bool CheckAcceptable(const std::string& rule, const SourceLocation& where,
                     const std::string& pointer, DiagnosticSink& sink) {
  for (const RuleInfo& info : AllRules()) {
    if (info.id != rule) continue;
    if (info.severity == Severity::kWarning) return true;
    sink.Report(Diagnostic{Severity::kError, where, pointer, "profile.accept-error",
                           "'" + rule + "' reports errors, which cannot be accepted",
                           "fix the profile; only warning rules can be accepted "
                           "(hkimgen lint --list-rules shows each rule's severity)"});
    return false;
  }
  // A near miss ("lint.image-lates") names the warning rule it most likely meant.
  const std::string closest = ClosestMatch(rule, AcceptableRuleIds());
  sink.Report(Diagnostic{Severity::kError, where, pointer, "profile.accept-unknown-rule",
                         "'" + rule + "' is not a rule id",
                         (closest.empty() ? std::string() : "did you mean " + closest + "? ") +
                             "write one of the ids `hkimgen lint --list-rules` prints"});
  return false;
}

}  // namespace

DiagnosticSink AcceptWarnings(const DiagnosticSink& sink, const LoadedProfile* merged,
                              const std::vector<std::string>& allow) {
  DiagnosticSink result;
  std::map<std::string, std::string> accepted;  // rule -> reason
  for (const std::string& rule : allow) {
    if (CheckAcceptable(rule, SourceLocation{"--allow", 0, 0}, "", result)) {
      accepted[rule] = "--allow";
    }
  }
  if (merged) {
    const nlohmann::json& doc = merged->document;
    if (doc.contains("accept_warnings") && doc["accept_warnings"].is_array()) {
      const nlohmann::json& list = doc["accept_warnings"];
      for (size_t i = 0; i < list.size(); ++i) {
        const std::string pointer = "/accept_warnings/" + std::to_string(i) + "/rule";
        if (!list[i].is_object() || !list[i].contains("rule") || !list[i]["rule"].is_string())
          continue;  // the schema reports it
        const std::string rule = list[i]["rule"];
        std::string reason = list[i].value("reason", "");
        if (CheckAcceptable(rule, merged->locations.Find(pointer), pointer, result)) {
          accepted[rule] = reason.empty() ? "accepted by the profile" : reason;
        }
      }
    }
  }
  for (Diagnostic d : sink.diagnostics()) {
    if (merged) AddIncludedFrom(*merged, d);
    auto it = accepted.find(d.rule);
    if (d.severity == Severity::kWarning && it != accepted.end()) {
      d.severity = Severity::kNote;
      d.message = "accepted (" + it->second + "): " + d.message;
      d.brief = true;
    }
    result.Report(std::move(d));
  }
  return result;
}

}  // namespace hkim

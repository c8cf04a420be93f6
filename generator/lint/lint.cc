#include "lint/lint.h"

#include <algorithm>

#include "lint/rules/rules.h"
#include "model/operator_versions.h"

namespace hkim {

void LintReporter::Report(const std::string& json_pointer, std::string message, std::string fix) {
  Diagnostic d;
  d.severity = severity_;
  d.location = context_.loaded.locations.Find(json_pointer);
  if (d.location.file.empty()) d.location.file = context_.loaded.path;
  d.data_path = json_pointer;
  d.rule = rule_;
  d.message = std::move(message);
  d.fix = std::move(fix);
  sink_.Report(std::move(d));
}

const std::vector<LintRule>& LintRules() {
  static const std::vector<LintRule> rules = [] {
    std::vector<LintRule> all;
    for (auto* group : {&NetworkLintRules, &AddressLintRules, &NcclLintRules, &NodeLintRules,
                        &OperatorLintRules, &PlaceholderLintRules, &GitOpsLintRules,
                        &ReleaseLintRules, &SecurityLintRules, &WorkloadLintRules}) {
      std::vector<LintRule> more = group();
      all.insert(all.end(), more.begin(), more.end());
    }
    std::sort(all.begin(), all.end(),
              [](const LintRule& l, const LintRule& r) { return std::string(l.id) < r.id; });
    return all;
  }();
  return rules;
}

void PrepareLintTables() {
  LintRules();
  NcclReleases();
  NcclEnvNames();
}

int RunLint(const Profile& profile, const LoadedProfile& loaded, DiagnosticSink& sink) {
  const int before = sink.ErrorCount();
  LintContext context{profile, loaded};
  LintReporter reporter(context, sink);
  for (const LintRule& rule : LintRules()) {
    reporter.BeginRule(rule.id, rule.severity);
    rule.check(context, reporter);
  }
  return sink.ErrorCount() - before;
}

NcclNameList ParseNcclNameList(const std::string& value) {
  NcclNameList list;
  std::string rest = value;
  if (!rest.empty() && rest[0] == '^') {
    list.exclude = true;
    rest.erase(0, 1);
  }
  if (!rest.empty() && rest[0] == '=') {
    list.exact = true;
    rest.erase(0, 1);
  }
  size_t start = 0;
  while (start <= rest.size()) {
    size_t comma = rest.find(',', start);
    std::string token =
        rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    token = token.substr(0, token.find(':'));
    if (!token.empty()) list.names.push_back(token);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return list;
}

bool NcclNameList::Matches(const std::string& device) const {
  return std::any_of(names.begin(), names.end(), [&](const std::string& name) {
    return exact ? device == name : device.rfind(name, 0) == 0;
  });
}

}  // namespace hkim

// The workload's command against the profile: a launcher told another node count than the
// StatefulSet runs waits for ranks that never come, or leaves pods out of the job.

#include <charconv>
#include <optional>
#include <string_view>

#include "lint/rules/rules.h"

namespace hkim {
namespace {

/// The value of torchrun's `--nnodes` in `text` (`--nnodes=N`, `--nnodes N`, elastic
/// `MIN:MAX`), or nothing. `next` is the argument after `text` (for `--nnodes N` as two).
std::optional<std::string> NnodesValue(std::string_view text, std::string_view next) {
  constexpr std::string_view kFlag = "--nnodes";
  for (size_t at = text.find(kFlag); at != std::string_view::npos;
       at = text.find(kFlag, at + kFlag.size())) {
    const bool starts = at == 0 || text[at - 1] == ' ' || text[at - 1] == '\t';
    std::string_view rest = text.substr(at + kFlag.size());
    if (!starts) continue;
    if (rest.empty()) return std::string(next);
    if (rest[0] != '=' && rest[0] != ' ') continue;
    rest.remove_prefix(1);
    while (!rest.empty() && rest[0] == ' ') rest.remove_prefix(1);
    return std::string(rest.substr(0, rest.find_first_of(" \t;&|\"'")));
  }
  return std::nullopt;
}

/// Whether a literal `--nnodes` value (N or MIN:MAX) admits `replicas`; a value that is not
/// literal (`$(HKIM_REPLICAS)`, `$NNODES`) admits anything.
bool Admits(const std::string& value, int replicas) {
  auto number = [](std::string_view text) -> std::optional<int> {
    int n = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return n;
  };
  const size_t colon = value.find(':');
  const std::optional<int> low = number(std::string_view(value).substr(0, colon));
  const std::optional<int> high =
      colon == std::string::npos ? low : number(std::string_view(value).substr(colon + 1));
  if (!low || !high) return true;
  return *low <= replicas && replicas <= *high;
}

void CheckCommandNnodes(const LintContext& context, LintReporter& report) {
  const Workload& w = context.profile.workload;
  for (size_t i = 0; i < w.command.size(); ++i) {
    const std::string next = i + 1 < w.command.size() ? w.command[i + 1] : "";
    const std::optional<std::string> value = NnodesValue(w.command[i], next);
    if (!value || Admits(*value, w.replicas)) continue;
    const std::string replicas = std::to_string(w.replicas);
    report.Report(w.pointer + "/command/" + std::to_string(i),
                  "the command starts its launcher with --nnodes " + *value +
                      ", but the StatefulSet runs workload.replicas: " + replicas +
                      " pods: the job waits for ranks that never come, or leaves pods out",
                  "write --nnodes=$(HKIM_REPLICAS) (Kubernetes puts the replica count the "
                  "bundle sets in the container's environment there), or set workload.replicas "
                  "to the count the command names");
    return;
  }
}

}  // namespace

std::vector<LintRule> WorkloadLintRules() {
  return {{"lint.command-nnodes", Severity::kWarning,
           "a --nnodes in workload.command admits workload.replicas", CheckCommandNnodes}};
}

}  // namespace hkim

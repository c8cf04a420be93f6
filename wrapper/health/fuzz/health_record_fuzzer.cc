// libFuzzer target over what hkim-health reads from the programs it runs: arbitrary bytes as the
// stdout of `hkim-wrapper --check` (DiagnosisOutcome) and of `hkim-nccl-check --json -`, plain
// or per rail (NcclOutcome for the summary; ReportFromRecord for a localization group), with the
// exit status the first byte picks. Each outcome ends in the summary line and each report in
// the exchange's JSON, as they do in the pod. Nothing may crash or throw.
#include <cstddef>
#include <cstdint>
#include <string>

#include "check_outcomes.h"
#include "localize_run.h"
#include "summary.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace hkim::health;
  if (size < 1) return 0;
  static const int kStatuses[] = {0, 1, 2, 3, 124, 137};
  ChildResult child;
  child.started = true;
  child.status = kStatuses[data[0] % 6];
  child.timed_out = data[0] >= 0xf0;
  child.error = "timed out";
  child.output.assign(reinterpret_cast<const char*>(data + 1), size - 1);
  NodeSummary summary;
  summary.mode = "node";
  summary.checks.push_back(DiagnosisOutcome(child));
  summary.checks.push_back(NcclOutcome("nccl-job", child));
  (void)FormatSummaryLine(summary);
  const MemberReport report = ReportFromRecord(child.output, child.status, child.timed_out, child.error);
  LocalizeOutcome outcome;
  outcome.pods = {{0, "node-a", "pod-0", {"mlx5_0"}}, {1, "node-b", "pod-1", {"mlx5_0"}}};
  GroupResult group;
  group.members = {0, 1};
  group.ran = report.ran;
  group.ok = report.ok;
  group.busbw_gbps = report.busbw_gbps;
  group.transport = report.transport;
  group.detail = report.detail;
  group.rails = report.rails;
  outcome.results.push_back(group);
  outcome.verdict = DecideSuspects(outcome.pods, outcome.results, 45);
  (void)LocalizationJson(outcome).dump();
  (void)SuspectsJson(outcome.verdict).dump();
  return 0;
}

#include "check_outcomes.h"

#include <cstdio>
#include <sstream>

#include "json_fields.h"

namespace hkim::health {
namespace {

using nlohmann::json;

std::string Gbps(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

void AddChildError(const ChildResult& child, CheckOutcome* outcome) {
  outcome->status = "error";
  if (!child.started || child.timed_out) {
    outcome->failures.push_back(child.error);
    outcome->fixes.push_back(child.timed_out ? "raise the check's timeout, or look for a hang "
                                               "in the log above (rendezvous, NCCL init)"
                                             : "is the program installed beside hkim-health?");
  }
}

}  // namespace

CheckOutcome InventoryOutcome(const InventoryResult& inventory) {
  CheckOutcome outcome;
  outcome.name = "inventory";
  outcome.status = inventory.passed ? "pass" : "fail";
  for (const auto& [resource, text] : inventory.numbers) {
    outcome.numbers[resource] = text;
    if (resource != "Ready") outcome.detail += (outcome.detail.empty() ? "" : ", ") + resource + " " + text;
  }
  outcome.failures = inventory.failures;
  outcome.fixes = inventory.fixes;
  return outcome;
}

CheckOutcome DiagnosisOutcome(const ChildResult& child) {
  CheckOutcome outcome;
  outcome.name = "diagnosis";
  if (!child.started || child.timed_out) {
    AddChildError(child, &outcome);
    return outcome;
  }
  outcome.status = child.status == 0 ? "pass" : "fail";
  std::istringstream lines(child.output);
  std::string line;
  bool after_error = false;
  while (std::getline(lines, line)) {
    if (line.find(": error: ") != std::string::npos) {
      outcome.failures.push_back(line);
      after_error = true;
    } else if (after_error && line.rfind("  fix: ", 0) == 0) {
      outcome.fixes.push_back(line.substr(7));
      after_error = false;
    } else {
      after_error = false;
    }
    if (line.rfind("result: ", 0) == 0) outcome.detail = line.substr(8);
  }
  outcome.numbers["exit_status"] = child.status;
  return outcome;
}

namespace {

CheckOutcome ReadNcclOutcome(const std::string& name, const ChildResult& child) {
  CheckOutcome outcome;
  outcome.name = name;
  if (!child.started || child.timed_out) {
    AddChildError(child, &outcome);
    return outcome;
  }
  outcome.numbers["exit_status"] = child.status;
  outcome.status = child.status == 0 ? "pass" : child.status == 1 ? "fail" : "error";
  if (child.status == kNcclExitRendezvous)
    outcome.detail = "could not take part: the job-scope rendezvous failed (not a fabric measurement)";
  const size_t brace = child.output.find('{');
  const json record = brace == std::string::npos
                          ? json()
                          : json::parse(child.output.substr(brace), nullptr, false);
  if (!record.is_object()) {
    if (outcome.detail.empty())
      outcome.detail = "exit status " + std::to_string(child.status) + ", no JSON record";
    if (outcome.status == "pass") outcome.status = "error";
    outcome.fixes.push_back("the check's own messages are in the log above this summary");
    return outcome;
  }
  outcome.failures = StringsField(record, "failures");
  const json& threshold = Field(record, "threshold");
  const std::uint64_t at_bytes = CountField(threshold, "at_bytes");
  const json& results = Field(record, "results");
  for (const json& row : results.is_array() ? results : json::array()) {
    if (CountField(row, "bytes") == at_bytes) {
      outcome.numbers["busbw_gbps"] = NumberField(row, "busbw_gbps");
      outcome.detail = "busbw " + Gbps(NumberField(row, "busbw_gbps")) + " GB/s";
    }
  }
  const double min_gbps = NumberField(threshold, "min_busbw_gbps");
  if (min_gbps > 0) {
    outcome.numbers["min_busbw_gbps"] = Field(threshold, "min_busbw_gbps");
    outcome.detail += " (min " + Gbps(min_gbps) + ")";
  }
  const std::string transport = StringField(Field(record, "transport"), "summary");
  if (!transport.empty()) {
    outcome.numbers["transport"] = transport;
    outcome.detail += (outcome.detail.empty() ? "" : ", ") + transport;
  }
  const json& rails = Field(record, "rails");
  if (rails.is_array()) {
    outcome.numbers["rails"] = rails;
    int bad = 0;
    for (const json& rail : rails) bad += StringField(rail, "status") != "pass";
    outcome.detail = std::to_string(rails.size()) + " rail(s), " + std::to_string(bad) + " bad" +
                     (outcome.detail.empty() ? "" : "; all together: " + outcome.detail);
  }
  if (outcome.status == "fail")
    outcome.fixes.push_back(
        "compare with the profile's thresholds; `hkim-wrapper --check` on the node says why "
        "RDMA is not used (memlock, GID, IOMMU, GPUDirect)");
  return outcome;
}

}  // namespace

CheckOutcome NcclOutcome(const std::string& name, const ChildResult& child) {
  try {
    return ReadNcclOutcome(name, child);
  } catch (const json::exception& error) {  // a record of an unexpected shape: never an abort
    CheckOutcome outcome;
    outcome.name = name;
    outcome.status = "error";
    outcome.numbers["exit_status"] = child.status;
    outcome.detail = "exit status " + std::to_string(child.status) + ", unreadable JSON record";
    outcome.failures.push_back(std::string("the record does not have the expected shape: ") +
                               error.what());
    outcome.fixes.push_back("the check's own messages are in the log above this summary");
    return outcome;
  }
}

}  // namespace hkim::health

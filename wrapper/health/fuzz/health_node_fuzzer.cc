// libFuzzer target over the Kubernetes API answers hkim-health reads: arbitrary bytes as the
// body of GET /api/v1/nodes/<name> (a Node) and of GET /api/v1/nodes?labelSelector= (a
// NodeList). A Node goes through the inventory check (CheckNodeInventory, InventoryOutcome) and
// the mark's read-modify-write (MarkEffect, MarkPatch, for a pass and a failure with taint);
// every item of a NodeList through the fleet inventory check, as the gate runs it. Each outcome
// ends in the summary line. Nothing may crash or throw; the patch must be a JSON object.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "check_outcomes.h"
#include "node_inventory.h"
#include "node_mark.h"
#include "summary.h"

namespace {

using nlohmann::json;
using namespace hkim::health;

const NodeExpectation& Expected() {
  static const NodeExpectation expected{8, {{"nvidia.com/sriov_rdma_vf", 8}, {"rdma/rdma_shared", 1}}};
  return expected;
}

void Check(const json& node, hkim::health::NodeSummary& summary) {
  summary.checks.push_back(InventoryOutcome(CheckNodeInventory(node, Expected())));
  (void)ParseCount(node.is_string() ? node.get<std::string>() : "");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const json body = json::parse(data, data + size, nullptr, false);
  if (body.is_discarded()) return 0;
  NodeSummary summary;
  summary.mode = "node";
  if (body.is_object() && body.contains("items") && body["items"].is_array()) {
    for (const json& item : body["items"]) Check(item, summary);  // ListNodes hands on any item
  }
  if (body.is_object()) {  // GetNode accepts any object
    Check(body, summary);
    for (const NodeMark& mark : {NodeMark{true, "", "2026-01-01T00:00:00Z", false, 2},
                                 NodeMark{false, "busbw 12 GB/s", "2026-01-01T00:00:00Z", true, 2}}) {
      (void)MarkEffect(body, mark);
      if (!MarkPatch(body, mark).is_object()) std::abort();
    }
  }
  (void)FormatSummaryLine(summary);
  return 0;
}

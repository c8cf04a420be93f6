#pragma once
// The in-pod check's verdicts as the night coordinator reads them (the workload's pods keep no
// token, so they write no condition): each workload pod's termination message (its suspects,
// "node X rail Y: ... GB/s vs >= ... expected", its moved counters, "node X counters moved ...",
// or "fabric check failed, no suspect: X: ...") and its readiness. A node named in a failed
// pod's message gets the condition's "pod" part; a node whose workload pod is Ready (its check
// passed) gets it cleared; any other node is left as it is.

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hkim::health {

/// What the in-pod checks say of one node: `issue` "" with `clear` = a pod on it passed.
struct PodVerdict {
  std::string issue;  ///< the lines naming the node, joined by "; "
  bool clear = false;
};

/// The lines of a termination message that name a node, by node ("node X ..." and "fabric check
/// failed, no suspect: X: ..."); other lines are ignored. Node names are cut at 253 bytes.
std::map<std::string, std::vector<std::string>> SuspectLinesByNode(const std::string& message);

/// The verdict per node from the workload's pods (as listed): the messages of their
/// containers' current and last terminations, and Ready pods (spec.nodeName) as passes.
/// A node named by a message is not cleared by a Ready pod on it.
std::map<std::string, PodVerdict> PodVerdicts(const std::vector<nlohmann::json>& pods);

}  // namespace hkim::health

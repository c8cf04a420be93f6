// Write stage, `hkimgen diff` (write/operator_downgrade.h). GPU Operator releases parse with
// model/operator_versions' ParseGpuOperatorVersion; channels ("v25.10") and the Network
// Operator's chart versions ("25.10.0") by their dotted numbers.

#include "write/operator_downgrade.h"

#include <cctype>

#include "model/operator_versions.h"

namespace hkim {

std::optional<std::vector<int>> ParseOperatorVersion(std::string_view text) {
  // A CSV name: "<package>.v<version>".
  if (const size_t at = text.find(".v"); at != std::string_view::npos) text = text.substr(at + 1);
  if (auto gpu = ParseGpuOperatorVersion(std::string(text)))
    return std::vector<int>{gpu->year, gpu->minor, gpu->patch};
  if (!text.empty() && text.front() == 'v') text.remove_prefix(1);
  std::vector<int> numbers;
  int value = -1;
  for (char c : text) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      if (value > 100000) return std::nullopt;
      value = (value < 0 ? 0 : value * 10) + (c - '0');
    } else if (c == '.' && value >= 0) {
      numbers.push_back(value);
      value = -1;
    } else {
      return std::nullopt;
    }
  }
  if (value < 0) return std::nullopt;
  numbers.push_back(value);
  return numbers;
}

std::string OlmDowngrade(std::string_view package, std::string_view from, std::string_view to) {
  const std::optional<std::vector<int>> old_version = ParseOperatorVersion(from);
  const std::optional<std::vector<int>> new_version = ParseOperatorVersion(to);
  if (!old_version || !new_version || !(*new_version < *old_version)) return "";
  return "the Subscription of " + std::string(package) + " moves from " + std::string(from) +
         " to the older " + std::string(to) +
         ": OLM only upgrades (it never replaces an installed CSV by an older one), so the "
         "Subscription would stay on " + std::string(from) + " while Argo CD reports it synced";
}

std::string ChartDowngrade(std::string_view chart, std::string_view from, std::string_view to) {
  const std::optional<std::vector<int>> old_version = ParseOperatorVersion(from);
  const std::optional<std::vector<int>> new_version = ParseOperatorVersion(to);
  if (!old_version || !new_version || !(*new_version < *old_version)) return "";
  // Argo CD renders and applies whatever revision it is given: nothing on the cluster refuses,
  // so the diff does.
  return "the Application of chart " + std::string(chart) + " moves from " + std::string(from) +
         " to the older " + std::string(to) +
         ": Argo CD would apply the older chart, its CRDs included, over the running release, "
         "and an older operator would manage the CRs and nodes the newer one set up";
}

}  // namespace hkim

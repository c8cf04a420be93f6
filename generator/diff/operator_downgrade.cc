// Diff stage, `hkimgen diff` (diff/operator_downgrade.h); versions compare with
// model/operator_versions' IsOlderVersion.

#include "diff/operator_downgrade.h"

#include "model/operator_versions.h"

namespace hkim {


std::string OlmDowngrade(std::string_view package, std::string_view from, std::string_view to) {
  if (!IsOlderVersion(to, from)) return "";
  return "the Subscription of " + std::string(package) + " moves from " + std::string(from) +
         " to the older " + std::string(to) +
         ": OLM only upgrades (it never replaces an installed CSV by an older one), so the "
         "Subscription would stay on " + std::string(from) + " while Argo CD reports it synced";
}

std::string ChartDowngrade(std::string_view chart, std::string_view from, std::string_view to) {
  if (!IsOlderVersion(to, from)) return "";
  // Argo CD renders and applies whatever revision it is given: nothing on the cluster refuses,
  // so the diff does.
  return "the Application of chart " + std::string(chart) + " moves from " + std::string(from) +
         " to the older " + std::string(to) +
         ": Argo CD would apply the older chart, its CRDs included, over the running release, "
         "and an older operator would manage the CRs and nodes the newer one set up";
}

}  // namespace hkim

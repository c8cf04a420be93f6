#pragma once

// Diff stage, `hkimgen diff`: whether a change of an OLM Subscription asks for an older operator
// release than the bundle on disk, which OLM cannot do (it only upgrades along a channel's
// graph), or a chart Application (OKE) an older chart release. The one comparison of operator versions the diff makes; a release catalog can take its
// place later by answering the same question.

#include <string>
#include <string_view>

#include "model/operator_versions.h"  // ParseOperatorVersion, IsOlderVersion

namespace hkim {

/// Why moving the Subscription of `package` from `from` to `to` (channels or starting CSVs) is a
/// downgrade OLM refuses; "" when it is not one, or when either is no version.
std::string OlmDowngrade(std::string_view package, std::string_view from, std::string_view to);

/// Why moving the Argo CD Application of Helm chart `chart` from `from` to `to` (its
/// targetRevision) is a downgrade hkimgen refuses, as it does OLM's; "" when it is not one.
std::string ChartDowngrade(std::string_view chart, std::string_view from, std::string_view to);

}  // namespace hkim

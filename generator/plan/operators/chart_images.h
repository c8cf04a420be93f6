#pragma once

// The images the OKE operator charts deploy of their own (operator, validator, toolkit, device
// plugin, DCGM exporter, GFD, MIG manager, the NFD subchart; the Network Operator's operator),
// as chart values that move them under images.mirror. Without a mirror the charts keep their
// defaults and the Applications are unchanged.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/model.h"

namespace hkim {

/// The mustache context of the GPU Operator Application's mirrored image values: null without
/// images.mirror. With it, each component's repository under the mirror, and, for the chart
/// version whose values.yaml is recorded (chart_images.cc), its image and version, so that
/// `hkimgen images` lists the reference (another version keeps the chart's image and tag).
nlohmann::json GpuOperatorMirrorValues(const Profile& profile, const GpuOperator& gpu);

/// The same for the Network Operator chart (`chart_version` as Argo CD's targetRevision).
nlohmann::json NetworkOperatorMirrorValues(const Profile& profile,
                                           const std::string& chart_version);

/// The images a chart Application makes the cluster pull that its values do not name (the
/// chart's own defaults, for `hkimgen images` and the ImageSetConfiguration: oc-mirror cannot
/// find the GPU Operator's operands, which its ClusterPolicy names in repository/image/version
/// fields): the recorded versions' defaults where the values leave them (no mirror), Volcano's
/// images under its `basic.image_registry`. Empty for a chart or version not recorded here.
std::vector<std::string> ChartDefaultImages(const std::string& chart, const std::string& version,
                                            const nlohmann::json& values);

}  // namespace hkim

#pragma once

// The images the OKE operator charts deploy of their own (operator, validator, toolkit, device
// plugin, DCGM exporter, GFD, MIG manager, the NFD subchart; the Network Operator's operator),
// as chart values that move them under images.mirror. Without a mirror the charts keep their
// defaults and the Applications are unchanged.

#include <nlohmann/json.hpp>

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

}  // namespace hkim

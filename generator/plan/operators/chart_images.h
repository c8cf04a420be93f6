#pragma once

// The images the OKE operator charts deploy of their own (operator, validator, toolkit, device
// plugin, DCGM exporter, GFD, MIG manager, the NFD subchart; the Network Operator's operator),
// read from the release catalog (model/operator_versions.h) at the pinned release, and the chart
// values that move them under images.mirror. Without a mirror the charts keep their defaults
// and the Applications are unchanged.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/model.h"

namespace hkim {

/// The mustache context of the GPU Operator Application's mirrored image values: null without
/// images.mirror. With it, each component's repository under the mirror and, for the images the
/// bundle makes the cluster pull (the release's catalog entry: on by default, the driver's only
/// with driver.enabled), their image and version, so that `hkimgen images` lists each reference.
nlohmann::json GpuOperatorMirrorValues(const Profile& profile, const GpuOperator& gpu);

/// The same for the Network Operator chart of release `version` (the tag, e.g. v25.10.0).
nlohmann::json NetworkOperatorMirrorValues(const Profile& profile, const std::string& version);

/// The images a chart Application makes the cluster pull that its values do not name (the
/// chart's own defaults at that chart version, from the release catalog, for `hkimgen images`
/// and the ImageSetConfiguration: oc-mirror cannot find the GPU Operator's operands, which its
/// ClusterPolicy names in repository/image/version fields), given the Application's `values`
/// (driver.enabled; operator.repository set means images.mirror named them already); Volcano's
/// images under its `basic.image_registry`. Empty for a chart or version the catalog lacks
/// (lint.operator-version reports the version).
std::vector<std::string> ChartDefaultImages(const std::string& chart, const std::string& version,
                                            const nlohmann::json& values);

/// One image a chart Application makes the cluster pull, and the Application's field that names
/// it (as `hkimgen images -o json` reports it).
struct ChartImageUse {
  std::string reference;
  std::string field;
};

/// Every image the Application of `chart` at `version` pulls, given its values as the plan
/// renders them: `values` (driver.enabled) and `mirror_values` (GpuOperatorMirrorValues,
/// NetworkOperatorMirrorValues or the Kueue/Volcano mirror context; null without images.mirror).
/// Where the mirror values name the images (GPU and Network Operator), each at its values path
/// (spec.source.helm.valuesObject.operator.{repository,image,version}); otherwise the chart's
/// defaults (ChartDefaultImages) under `mirror`, at "chart <chart> <version> default values".
std::vector<ChartImageUse> ChartPulledImages(const std::string& mirror, const std::string& chart,
                                             const std::string& version,
                                             const nlohmann::json& values,
                                             const nlohmann::json& mirror_values);

/// The repository of the image Kueue's chart deploys (controllerManager.manager.image).
std::string KueueChartImageRepository();

}  // namespace hkim

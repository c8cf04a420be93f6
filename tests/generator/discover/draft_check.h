#pragma once

// What the discover tests share: the fixtures of tests/generator/discover/, a generated export of
// any size, and the check that a draft validates and renders.

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "load/load.h"
#include "pipeline/pipeline.h"
#include "pipeline/profile_check.h"
#include "test_files.h"

namespace hkim::discover_test {

inline const std::filesystem::path kFixtures =
    std::filesystem::path(HKIM_SOURCE_DIR) / "tests/generator/discover";

/// The text of tests/generator/discover/<name>.
inline std::string Fixture(const std::string& name) {
  return test_files::ReadFile(kFixtures / name);
}

/// The drafted profile passes what `hkimgen validate` checks (schema, model, lint errors) and
// renders a bundle.
inline void ExpectValidatesAndRenders(const std::string& text) {
  DiagnosticSink sink;
  std::optional<LoadedProfile> loaded = LoadProfileFromText("drafted.yaml", text, sink);
  ASSERT_TRUE(loaded) << text;
  std::optional<Profile> profile = CheckLoadedProfile(*loaded, sink);
  SourceTexts sources{{"drafted.yaml", loaded->source_lines}};
  EXPECT_TRUE(profile.has_value()) << FormatDiagnostics(sink, sources) << text;
  EXPECT_EQ(sink.ErrorCount(), 0) << FormatDiagnostics(sink, sources);
  DiagnosticSink render_sink;
  std::optional<RenderedBundle> bundle = RenderLoadedProfile(*loaded, render_sink);
  ASSERT_TRUE(bundle) << FormatDiagnostics(render_sink, sources);
  EXPECT_FALSE(bundle->files.empty());
}

/// An OpenShift export of `nodes` GPU nodes with four rails each (one VF per rail, as Barcelona)
/// and no NAD: every rail's range is the draft's to choose.
inline std::string OpenShiftExport(int nodes) {
  nlohmann::json items = nlohmann::json::array();
  const std::vector<std::string> rails = {"eno5np0", "eno6np0", "eno7np0", "eno8np0"};
  for (int i = 0; i < nodes; ++i) {
    const std::string name = "gpu-" + std::to_string(10000 + i);
    nlohmann::json capacity = {{"nvidia.com/gpu", "4"}};
    nlohmann::json interfaces = nlohmann::json::array();
    for (const std::string& rail : rails) {
      capacity["openshift.io/" + rail + "rdma"] = "1";
      interfaces.push_back({{"name", rail},
                            {"vendor", "15b3"},
                            {"deviceID", "1021"},
                            {"linkType", "ETH"},
                            {"mtu", 9000},
                            {"numVfs", 1},
                            {"Vfs", {{{"name", rail + "v0"}, {"deviceID", "101e"}}}}});
    }
    items.push_back({{"apiVersion", "v1"},
                     {"kind", "Node"},
                     {"metadata",
                      {{"name", name},
                       {"labels",
                        {{"kubernetes.io/hostname", name},
                         {"node.openshift.io/os_id", "rhcos"},
                         {"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"},
                         {"feature.node.kubernetes.io/cpu-model.vendor_id", "AMD"}}}}},
                     {"status", {{"capacity", capacity}}}});
    items.push_back(
        {{"apiVersion", "sriovnetwork.openshift.io/v1"},
         {"kind", "SriovNetworkNodeState"},
         {"metadata", {{"name", name}, {"namespace", "openshift-sriov-network-operator"}}},
         {"status", {{"interfaces", interfaces}}}});
  }
  return nlohmann::json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}}.dump(1);
}

}  // namespace hkim::discover_test

#pragma once

// Shared by the cluster_check tests: a profile (changed as --set would) checked against an
// export, with the findings by rule.

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cluster_check/cluster_check.h"
#include "cluster_check/simulated_cluster.h"
#include "layering/layering.h"
#include "pipeline/profile_check.h"
#include "test_files.h"

namespace hkim::cluster_check_test {

namespace fs = std::filesystem;

inline const fs::path kSource = fs::path(HKIM_SOURCE_DIR);
inline const fs::path kFixtures = kSource / "tests/generator/cluster_check";

struct Checked {
  DiagnosticSink sink;
  cluster_check::ProfileReport report;
  std::optional<CheckedProfile> profile;

  std::vector<const Diagnostic*> Of(const std::string& rule) const {
    std::vector<const Diagnostic*> found;
    for (const Diagnostic& d : sink.diagnostics())
      if (d.rule == rule) found.push_back(&d);
    return found;
  }
  std::string All() const {
    std::string text;
    for (const Diagnostic& d : sink.diagnostics())
      text += d.location.file + ":" + std::to_string(d.location.line) + " " + d.rule + " " +
              d.message + "\n";
    return text;
  }
  int Errors() const { return sink.ErrorCount(); }
};

// `profile` (under the source tree, changed by `sets` as --set would) against an export given
// as text.
inline Checked CheckText(const std::string& profile, const std::string& label, const std::string& text,
                  const std::vector<std::string>& sets = {}) {
  Checked c;
  LayerInputs inputs;
  inputs.profile_path = (kSource / profile).string();
  inputs.set_values = sets;
  DiagnosticSink own;
  c.profile = CheckLayeredProfile(inputs, own);
  EXPECT_TRUE(c.profile && c.profile->profile) << profile;
  if (!c.profile || !c.profile->profile) return c;
  auto cluster = cluster_check::LoadClusterExport({{label, text}}, c.sink);
  EXPECT_NE(cluster, nullptr);
  if (!cluster) return c;
  c.report = cluster_check::CheckProfile(*c.profile->profile, *c.profile->plan,
                                         c.profile->layered.merged, *cluster,
                                         c.sink);
  cluster_check::CheckUnpickedNodes({c.report}, *c.profile->profile, c.profile->layered.merged,
                                    *cluster, c.sink);
  return c;
}

inline Checked Check(const std::string& profile, const std::string& fixture,
              const std::vector<std::string>& sets = {}) {
  return CheckText(profile, fixture, test_files::ReadFile(kFixtures / fixture), sets);
}

// `fixture` with its items changed by `edit`, checked with `profile` (and `sets`).
inline Checked CheckEdited(const std::string& profile, const std::string& fixture,
                           const std::function<void(nlohmann::json& items)>& edit,
                           const std::vector<std::string>& sets = {}) {
  nlohmann::json doc = nlohmann::json::parse(test_files::ReadFile(kFixtures / fixture));
  edit(doc["items"]);
  return CheckText(profile, fixture, doc.dump(1), sets);
}

// The profile (a path under the source tree or absolute), changed by `sets`, checked against the
// cluster it describes after its sync (simulated_cluster.h), with `drift` applied to the export's
// items: the fixture builder of the tests that change one thing in a cluster.
inline Checked CheckSynced(const std::string& profile, const std::vector<std::string>& sets = {},
                           const std::function<void(nlohmann::json& items)>& drift = {},
                           const SimulationOptions& options = {}) {
  LayerInputs inputs;
  inputs.profile_path = (kSource / profile).string();
  inputs.set_values = sets;
  DiagnosticSink sink;
  auto checked = CheckLayeredProfile(inputs, sink);
  if (!checked || !checked->profile || !checked->plan) {
    ADD_FAILURE() << profile << " does not check";
    return {};
  }
  nlohmann::json cluster = SimulateSyncedCluster(*checked, options);
  if (drift) drift(cluster["items"]);
  return CheckText(profile, "synced.json", cluster.dump(1), sets);
}

// The export item of `kind` named `name`; a test failure (and a throwaway object) when absent.
inline nlohmann::json& FindItem(nlohmann::json& items, const std::string& kind,
                                const std::string& name) {
  for (nlohmann::json& item : items)
    if (item["kind"] == kind && item["metadata"]["name"] == name) return item;
  ADD_FAILURE() << kind << "/" << name << " not in the fixture";
  static nlohmann::json none;
  none = nlohmann::json::object();
  return none;
}

inline constexpr char kBarcelona[] = "profiles/barcelona-h100-cx7.yaml";

}  // namespace hkim::cluster_check_test

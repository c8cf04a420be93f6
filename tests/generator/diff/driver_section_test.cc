// A driver roll is named only where the rendered CR has a driver section: OKE's NicClusterPolicy
// has no ofedDriver (the NIC driver is the host's), so neither `hkimgen diff` (adding it, changing
// it) nor the bundle README says its sync rolls a driver; a NicClusterPolicy that does deploy the
// DOCA driver still does.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "pipeline/pipeline.h"
#include "diff/sync_effects.h"

namespace hkim {
namespace {

RenderedBundle RenderOke() {
  LayerInputs inputs;
  inputs.profile_path =
      (std::filesystem::path(HKIM_SOURCE_DIR) / "profiles" / "oke-h100.yaml").string();
  DiagnosticSink sink;
  std::optional<RenderedBundle> bundle = RenderProfileLayers(inputs, sink);
  EXPECT_TRUE(bundle);
  return bundle ? *bundle : RenderedBundle{};
}

std::string FileOf(const RenderedBundle& bundle, const std::string& template_name) {
  for (const RenderedFile& file : bundle.files)
    if (file.template_name == template_name) return FileText(file);
  return "";
}

TEST(DriverSection, AnOkeNicClusterPolicyWithoutOfedDriverRollsNoDriverWhenAddedOrChanged) {
  const std::string text = FileOf(RenderOke(), "oke/nicclusterpolicy.yaml.mustache");
  ASSERT_FALSE(text.empty());
  ASSERT_EQ(text.find("ofedDriver"), std::string::npos);
  const DiffObject policy = ParseDiffObject(text);
  ASSERT_EQ(policy.kind, "NicClusterPolicy");
  const SyncEffect added = EffectOfAdding(policy);
  EXPECT_EQ(added.effect, Disruption::kNone) << added.what;

  // A new device plugin image: its pods are redeployed, no driver rolls.
  std::string changed_text = text;
  const size_t at = changed_text.find("version: ");
  ASSERT_NE(at, std::string::npos);
  changed_text.insert(at + 9, "9");
  const SyncEffect changed = EffectOfChange(policy, ParseDiffObject(changed_text), {});
  EXPECT_EQ(changed.effect, Disruption::kNone) << changed.what;
  ASSERT_FALSE(changed.notes.empty());
  EXPECT_NE(changed.notes[0].find("redeploys its device plugin"), std::string::npos);
}

TEST(DriverSection, ANicClusterPolicyThatDeploysTheDriverStillRollsIt) {
  const std::string text = FileOf(RenderOke(), "oke/nicclusterpolicy.yaml.mustache") +
                           "  ofedDriver:\n    image: doca-driver\n    version: doca3.3.0\n";
  const SyncEffect added = EffectOfAdding(ParseDiffObject(text));
  EXPECT_EQ(added.effect, Disruption::kDriverRoll);
  EXPECT_NE(added.what.find("DOCA driver"), std::string::npos) << added.what;
}

TEST(DriverSection, TheOkeReadmeNamesNoDriverRollForTheNicClusterPolicy) {
  const std::string readme = FileOf(RenderOke(), "bundle/README.md.mustache");
  ASSERT_FALSE(readme.empty());
  EXPECT_EQ(readme.find("spec/ofedDriver"), std::string::npos);
  EXPECT_EQ(readme.find("### NicClusterPolicy `nic-cluster-policy`"), std::string::npos);
  // The VF DaemonSet's reset is named for its VF count only.
  EXPECT_NE(readme.find("**VF reset** on a change of "
                        "spec/template/spec/containers/vf-config/env/VFS_PER_PF"),
            std::string::npos);
}

}  // namespace
}  // namespace hkim

// `hkimgen diff` between two operator releases (diff/release_moves.h): the bundle of one
// release against the bundle of another, on OKE (chart revisions) and OpenShift (startingCSV):
// the images and CRDs that change, whether the driver rolls, a skipped minor.
#include "diff/release_moves.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "pipeline/pipeline.h"
#include "test_files.h"

namespace hkim {
namespace {

namespace fs = std::filesystem;
using ::testing::Contains;
using ::testing::HasSubstr;

std::map<std::string, std::string> Files(const RenderedBundle& bundle) {
  std::map<std::string, std::string> files;
  for (const RenderedFile& f : bundle.files) files[f.file_name] = f.content;
  return files;
}

RenderedBundle Render(const std::string& profile, const std::vector<std::string>& sets) {
  LayerInputs inputs;
  inputs.profile_path = (fs::path(HKIM_SOURCE_DIR) / "profiles" / (profile + ".yaml")).string();
  inputs.set_values = sets;
  DiagnosticSink sink;
  std::optional<RenderedBundle> bundle = RenderProfileLayers(inputs, sink);
  EXPECT_TRUE(bundle) << (sink.diagnostics().empty() ? "" : sink.diagnostics()[0].message);
  return bundle.value_or(RenderedBundle{});
}

TEST(ReleaseMoves, OkeGpuOperatorMoveNamesImagesAndCrdsAndNoDriverRoll) {
  const RenderedBundle before =
      Render("oke-h100", {"operators.gpu_operator.version=v25.10.0"});
  const RenderedBundle after =
      Render("oke-h100", {"operators.gpu_operator.version=v25.10.1"});
  const std::vector<ReleaseMove> moves = ReleaseMoves(after, Files(before));
  ASSERT_EQ(moves.size(), 1u);
  const ReleaseMove& m = moves[0];
  EXPECT_EQ(m.operator_name, "GPU Operator");
  EXPECT_EQ(m.from, "v25.10.0");
  EXPECT_EQ(m.to, "v25.10.1");
  EXPECT_THAT(m.images, Contains("devicePlugin: nvcr.io/nvidia/k8s-device-plugin:v0.18.0 -> "
                                 "nvcr.io/nvidia/k8s-device-plugin:v0.18.1"));
  EXPECT_FALSE(m.driver_deployed);  // driver.enabled false: the node image's driver
  EXPECT_FALSE(m.DriverRolls());
  EXPECT_TRUE(m.skipped.empty());
  const std::string text = FormatReleaseMoves(moves);
  EXPECT_THAT(text, HasSubstr("Release move: GPU Operator v25.10.0 -> v25.10.1"));
  EXPECT_THAT(text, HasSubstr("no driver roll"));
  EXPECT_EQ(ReleaseMovesToJson(moves)[0]["to"], "v25.10.1");
  // The same release on both sides moves nothing.
  EXPECT_TRUE(ReleaseMoves(after, Files(after)).empty());
}

TEST(ReleaseMoves, OpenShiftMoveReadsTheStartingCsvAndTheDriverRolls) {
  const std::vector<std::string> managed = {"operators.gpu_operator.install=managed"};
  auto with = [&](const char* version) {
    std::vector<std::string> sets = managed;
    sets.push_back(std::string("operators.gpu_operator.version=") + version);
    return Render("barcelona-h100-cx7", sets);
  };
  const std::vector<ReleaseMove> moves = ReleaseMoves(with("v26.3.0"), Files(with("v25.10.1")));
  ASSERT_EQ(moves.size(), 1u);
  const ReleaseMove& m = moves[0];
  EXPECT_EQ(m.from, "v25.10.1");
  EXPECT_EQ(m.to, "v26.3.0");
  EXPECT_TRUE(m.driver_deployed);
  EXPECT_TRUE(m.DriverRolls());  // 580.105.08 -> 580.126.20
  EXPECT_EQ(m.driver_from, "580.105.08");
  EXPECT_FALSE(m.crds.empty()) << "the ClusterPolicy CRD changed between the two tags";
  EXPECT_THAT(FormatReleaseMoves(moves), HasSubstr("[disruptive: the driver DaemonSet rolls"));
}

TEST(ReleaseMoves, ASkippedMinorIsAWarningNamingTheStep) {
  const RenderedBundle before = Render("oke-h100", {"operators.gpu_operator.version=v25.10.1"});
  const RenderedBundle after = Render("oke-h100", {"operators.gpu_operator.version=v26.7.0"});
  const std::vector<ReleaseMove> moves = ReleaseMoves(after, Files(before));
  ASSERT_EQ(moves.size(), 1u);
  EXPECT_EQ(moves[0].skipped, std::vector<std::string>{"v26.3"});
  DiagnosticSink sink;
  ReportSkippedMinors(moves, sink);
  ASSERT_EQ(sink.diagnostics().size(), 1u);
  const Diagnostic& d = sink.diagnostics()[0];
  EXPECT_EQ(d.rule, "diff.skipped-minor");
  EXPECT_EQ(d.severity, Severity::kWarning);
  EXPECT_THAT(d.message, HasSubstr("v25.10.1 -> v26.7.0 skips v26.3"));
  EXPECT_THAT(d.fix, HasSubstr("pin a release of v26.3 first"));
  // One minor at a time is no warning.
  DiagnosticSink none;
  ReportSkippedMinors(
      ReleaseMoves(Render("oke-h100", {"operators.gpu_operator.version=v26.3.0"}), Files(before)),
      none);
  EXPECT_TRUE(none.diagnostics().empty());
}

TEST(ReleaseMoves, NetworkOperatorMoveNamesItsComponentImages) {
  const RenderedBundle before =
      Render("oke-h100", {"operators.network_operator.version=v25.10.0"});
  const RenderedBundle after =
      Render("oke-h100", {"operators.network_operator.version=v26.1.0"});
  const std::vector<ReleaseMove> moves = ReleaseMoves(after, Files(before));
  ASSERT_EQ(moves.size(), 1u);
  EXPECT_EQ(moves[0].operator_name, "Network Operator");
  EXPECT_THAT(moves[0].images,
              Contains("doca_driver: nvcr.io/nvidia/mellanox/doca-driver:doca3.2.0-25.10-1.2.8.0-2"
                       " -> nvcr.io/nvidia/mellanox/doca-driver:doca3.3.0-26.01-1.0.0.0-0"));
}

}  // namespace
}  // namespace hkim

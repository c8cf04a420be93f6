// diff (single and fleet) reports a change that cannot take effect, an OLM downgrade, as an
// error at the profile value that made the object, where the fix goes.
#include <gtest/gtest.h>

#include "commands/diff_command.h"

namespace hkim {
namespace {

BundleDiff Refused(const std::string& file) {
  BundleDiff diff;
  BundleChange change;
  change.file_name = file;
  change.refusal = "the Subscription of p moves from v2 to the older v1: ...";
  diff.changes.push_back(change);
  return diff;
}

BundlePlan PlanWith(const std::string& file, const std::string& pointer) {
  BundlePlan plan;
  PlannedObject o;
  o.file_name = file;
  o.source_pointer = pointer;
  plan.objects.push_back(o);
  return plan;
}

TEST(DiffRefusal, IsAnErrorAtTheOperatorsVersionInTheProfile) {
  LoadedProfile profile;
  profile.path = "p.yaml";
  profile.locations.values["/operators/gpu_operator"] = {"p.yaml", 40, 3};
  profile.locations.values["/operators/gpu_operator/version"] = {"p.yaml", 42, 14};
  DiagnosticSink sink;
  ReportRefusals(Refused("platform/sub.yaml"),
                 PlanWith("platform/sub.yaml", "/operators/gpu_operator"), profile, "out/x", sink);
  ASSERT_EQ(sink.diagnostics().size(), 1u);
  const Diagnostic& d = sink.diagnostics()[0];
  EXPECT_EQ(d.severity, Severity::kError);
  EXPECT_EQ(d.rule, "diff.operator-downgrade");
  EXPECT_EQ(d.data_path, "/operators/gpu_operator/version");
  EXPECT_EQ(d.location.line, 42);
  EXPECT_EQ(d.location.column, 14);
  EXPECT_EQ(d.message, "the Subscription of p moves from v2 to the older v1: ...");
  EXPECT_NE(d.fix.find("keep the version the cluster runs"), std::string::npos);
}

TEST(DiffRefusal, AChartApplicationsFixSaysToUninstallTheRelease) {
  BundleDiff diff = Refused("apps/00-application-gpu.yaml");
  diff.changes[0].object_kind = "Application";
  DiagnosticSink sink;
  ReportRefusals(diff, BundlePlan{}, LoadedProfile{}, "out/x", sink);
  ASSERT_EQ(sink.diagnostics().size(), 1u);
  EXPECT_NE(sink.diagnostics()[0].fix.find("uninstall the chart's release"), std::string::npos);
  EXPECT_EQ(sink.diagnostics()[0].fix.find("Subscription"), std::string::npos);
}

TEST(DiffRefusal, FallsBackToTheBundleFileWhenThePlanDoesNotSay) {
  DiagnosticSink sink;
  ReportRefusals(Refused("platform/sub.yaml"), BundlePlan{}, LoadedProfile{}, "out/x", sink);
  ASSERT_EQ(sink.diagnostics().size(), 1u);
  EXPECT_EQ(sink.diagnostics()[0].location.file, "out/x/platform/sub.yaml");
  EXPECT_FALSE(sink.diagnostics()[0].location.known());
}

}  // namespace
}  // namespace hkim

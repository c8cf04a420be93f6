// diff on bootstrap/ (OpenShift): its files are applied by a cluster admin, never by Argo CD, so
// diff marks them "[by hand]", and when the ClusterRole gains resources it names them and says to
// re-apply it before the sync that needs them.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "diff/bundle_diff.h"
#include "pipeline/pipeline.h"

namespace hkim {
namespace {

constexpr char kRole[] = "bootstrap/clusterrole-argocd-apply.yaml";
constexpr char kBinding[] = "bootstrap/clusterrolebinding-argocd-apply.yaml";

RenderedBundle RenderBarcelona() {
  LayerInputs inputs;
  inputs.profile_path =
      (std::filesystem::path(HKIM_SOURCE_DIR) / "profiles" / "barcelona-h100-cx7.yaml").string();
  DiagnosticSink sink;
  std::optional<RenderedBundle> bundle = RenderProfileLayers(inputs, sink);
  EXPECT_TRUE(bundle);
  return bundle ? *bundle : RenderedBundle{};
}

// The bundle's folder as a render of it leaves it.
std::map<std::string, std::string> Folder(const RenderedBundle& bundle) {
  std::map<std::string, std::string> files;
  for (const RenderedFile& file : bundle.files) files[file.file_name] = FileText(file);
  return files;
}

// `text` without its first occurrence of `line` (which must be there).
std::string Without(std::string text, const std::string& line) {
  const size_t at = text.find(line);
  EXPECT_NE(at, std::string::npos) << line;
  if (at != std::string::npos) text.erase(at, line.size());
  return text;
}

TEST(BootstrapDiff, AClusterRoleThatGainsResourcesIsReappliedBeforeTheSync) {
  const RenderedBundle bundle = RenderBarcelona();
  std::map<std::string, std::string> folder = Folder(bundle);
  ASSERT_TRUE(folder.count(kRole));
  // The folder holds the render of a bundle without Services and priority classes: the role
  // granted neither.
  folder[kRole] = Without(Without(folder[kRole], "  - services\n"), "  - priorityclasses\n");
  const BundleDiff diff = DiffBundle(bundle, folder);
  ASSERT_EQ(diff.changes.size(), 1u);
  const BundleChange& change = diff.changes[0];
  EXPECT_EQ(change.kind, BundleChange::Kind::kChanged);
  EXPECT_EQ(change.file_name, kRole);
  EXPECT_TRUE(change.by_hand);
  EXPECT_FALSE(change.disruptive);
  ASSERT_EQ(change.notes.size(), 1u);
  EXPECT_EQ(change.notes[0],
            "bootstrap: it grants Argo CD priorityclasses.scheduling.k8s.io, services, which the "
            "bundle's new objects need; Argo CD does not apply it, so a cluster admin re-applies "
            "it before the sync (`oc apply -f bootstrap/clusterrole-argocd-apply.yaml` in the "
            "bundle folder), or the sync is refused writing them");
  const std::string text = FormatBundleDiff(diff, "out/barcelona");
  EXPECT_NE(text.find("~ changed bootstrap/clusterrole-argocd-apply.yaml (ClusterRole "
                      "hkimgen:barcelona:argocd-apply) [by hand]\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("out/barcelona: 0 to add, 1 to change, 0 to remove; 1 to apply by hand "
                      "before the sync (bootstrap/, see its notes)\n"),
            std::string::npos)
      << text;
  const nlohmann::json json = BundleDiffToJson(diff, "out/barcelona");
  EXPECT_EQ(json["changes"][0]["by_hand"], true);
  EXPECT_EQ(json["summary"]["by_hand"], 1);
}

TEST(BootstrapDiff, AClusterRoleThatLosesResourcesSaysTheRightsStayUntilReapplied) {
  const RenderedBundle bundle = RenderBarcelona();
  std::map<std::string, std::string> folder = Folder(bundle);
  ASSERT_TRUE(folder.count(kRole));
  std::string role = folder[kRole];
  role.insert(role.find("  - services\n"), "  - secrets\n");
  folder[kRole] = role;
  const BundleDiff diff = DiffBundle(bundle, folder);
  ASSERT_EQ(diff.changes.size(), 1u);
  EXPECT_TRUE(diff.changes[0].by_hand);
  ASSERT_EQ(diff.changes[0].notes.size(), 1u);
  EXPECT_EQ(diff.changes[0].notes[0],
            "bootstrap: it no longer grants secrets; the rights stay on the cluster until a "
            "cluster admin re-applies it (`oc apply -f bootstrap/clusterrole-argocd-apply.yaml` "
            "in the bundle folder)");
}

TEST(BootstrapDiff, ANewBootstrapIsAppliedByHandAndARemovedOneStaysOnTheCluster) {
  const RenderedBundle bundle = RenderBarcelona();
  std::map<std::string, std::string> folder = Folder(bundle);
  ASSERT_TRUE(folder.count(kBinding));
  folder.erase(kBinding);
  BundleDiff diff = DiffBundle(bundle, folder);
  ASSERT_EQ(diff.changes.size(), 1u);
  EXPECT_EQ(diff.changes[0].kind, BundleChange::Kind::kAdded);
  EXPECT_TRUE(diff.changes[0].by_hand);
  ASSERT_EQ(diff.changes[0].notes.size(), 1u);
  EXPECT_EQ(diff.changes[0].notes[0],
            "bootstrap: Argo CD does not apply it; a cluster admin applies it before the sync: "
            "`oc apply -f bootstrap/clusterrolebinding-argocd-apply.yaml` in the bundle folder");

  RenderedBundle without = bundle;
  std::erase_if(without.files, [](const RenderedFile& f) { return f.file_name == kBinding; });
  diff = DiffBundle(without, Folder(bundle));
  ASSERT_EQ(diff.changes.size(), 1u);
  EXPECT_EQ(diff.changes[0].kind, BundleChange::Kind::kRemoved);
  EXPECT_FALSE(diff.changes[0].by_hand);
  ASSERT_EQ(diff.changes[0].notes.size(), 1u);
  EXPECT_EQ(diff.changes[0].notes[0].rfind("left in place: Argo CD never applied it (bootstrap/); "
                                           "when it should go, a cluster admin deletes it: "
                                           "kubectl delete ClusterRoleBinding ",
                                           0),
            0u)
      << diff.changes[0].notes[0];
}

}  // namespace
}  // namespace hkim

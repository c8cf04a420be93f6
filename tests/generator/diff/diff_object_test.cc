// diff reads a file's identity from its top-level lines when they are in the plain form hkimgen
// writes, without a YAML parser: the identity must be the parser's, for every file of the
// shipped bundles and for texts that look alike but mean something else (those go to the parser).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "diff/sync_effects.h"

namespace hkim {
namespace {

// What the YAML parser reads: "---" first is the same document, but no plain header.
DiffObject ParsedByYaml(const std::string& text, std::string& with_marker) {
  with_marker = "---\n" + text;
  return ParseDiffObject(with_marker);
}

void ExpectSameIdentity(const std::string& text, const std::string& what) {
  std::string with_marker;
  const DiffObject read = ParseDiffObject(text);
  const DiffObject parsed = ParsedByYaml(text, with_marker);
  EXPECT_EQ(read.group, parsed.group) << what;
  EXPECT_EQ(read.kind, parsed.kind) << what;
  EXPECT_EQ(read.name, parsed.name) << what;
  EXPECT_EQ(read.namespace_name, parsed.namespace_name) << what;
  EXPECT_EQ(read.keep_on_removal, parsed.keep_on_removal) << what;
}

TEST(DiffObject, EveryFileOfTheShippedBundlesIsReadWithoutTheParserAsTheParserReadsIt) {
  size_t files = 0, objects = 0;
  const std::filesystem::path out = std::filesystem::path(HKIM_SOURCE_DIR) / "out";
  for (const auto& entry : std::filesystem::recursive_directory_iterator(out)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".yaml") continue;
    std::ifstream in(entry.path());
    std::stringstream stream;
    stream << in.rdbuf();
    const std::string text = stream.str();
    ExpectSameIdentity(text, entry.path().string());
    ++files;
    const DiffObject object = ParseDiffObject(text);
    if (object.kind.empty() || object.name.empty()) continue;  // kustomization.yaml
    ++objects;
    // In the plain form: its identity does not need the rest to parse.
    const std::string broken = text + "zz:\n  - [unclosed\n";
    const DiffObject read = ParseDiffObject(broken);
    EXPECT_EQ(read.kind, object.kind) << entry.path() << ": not read without the YAML parser";
    EXPECT_EQ(read.name, object.name) << entry.path();
    EXPECT_TRUE(read.Document().IsNull()) << entry.path();
  }
  EXPECT_GT(files, 100u);
  EXPECT_GT(objects, 100u);
}

TEST(DiffObject, TextsThatOnlyLookPlainReadAsTheYamlParserReadsThem) {
  const std::vector<std::string> texts = {
      "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n",
      "apiVersion: v1\nkind: Service # a comment\nmetadata:\n  name: a\n",
      "apiVersion: \"v1\"\nkind: 'Service'\nmetadata:\n  name: \"a:b\"\n  namespace: ns\n",
      "apiVersion: v1\nkind: Service\nmetadata:\n  name: hkimgen:lab:apply\n",
      "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n    b\n",
      "apiVersion: v1\nkind: Service\n  Account\nmetadata:\n  name: a\n",
      "apiVersion: v1\nkind: Service\n\n  Account\nmetadata:\n  name: a\n",
      "apiVersion: v1\nkind: Service\n# between\n  Account\nmetadata:\n  name: a\n",
      "apiVersion: v1\nkind: Service\nmetadata: {name: a, namespace: b}\n",
      "apiVersion: v1\nkind: Service\nmetadata:\n    name: a\n    namespace: b\n",
      "apiVersion: v1\nkind: Service\nmetadata:\n  name: ~\n",
      "apiVersion: v1\nkind: Service\nmetadata:\n  name: null\n",
      "apiVersion: v1\nkind: Service\nmetadata:\n  name: ''\n",
      "apiVersion: v1\nkind: Service\nmetadata:\n  name: a   \n",
      "apiVersion: v1\r\nkind: Service\r\nmetadata:\r\n  name: a\r\n",
      "apiVersion: v1\nkind: Service\nmetadata:\n\tname: a\n",
      "apiVersion: v1\nkind: &k Service\nmetadata:\n  name: *k\n",
      "apiVersion: v1\nkind: !!str Service\nmetadata:\n  name: a\n",
      "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  annotations:\n"
      "    argocd.argoproj.io/sync-options: Prune=false,Delete=false\n",
      "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  annotations:\n"
      "    argocd.argoproj.io/sync-options: \"Prune=false\"\n    other: x\n",
      "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  annotations:\n"
      "    argocd.argoproj.io/sync-options: |\n      Prune=false\n",
      "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  annotations:\n"
      "    argocd.argoproj.io/sync-options: Validate=false\n      Prune=false\n",
      "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  labels:\n    x: y\n"
      "  namespace: n\nspec:\n  name: not-this\n",
      "apiVersion: v1\nkind: Service\nspec:\n  metadata:\n    name: inner\nmetadata:\n  name: a\n",
      "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: Pod\n",
      "- apiVersion: v1\n",
      "apiVersion: v1\nkind: Role\nmetadata:\n  name: a\nrules:\n- apiGroups:\n  - \"\"\n",
      "apiVersion: v1\nkind: Role\nmetadata:\n  name: a\nrules: x\n- apiGroups: []\n",
      "apiVersion: v1\nkind: Role\n- x\nmetadata:\n  name: a\n",
      "apiVersion: v1\nkind: Role\nmetadata:\n- name: a\n",
      "apiVersion: v1\nkind: PriorityClass\nmetadata:\n  name: a\nvalue: -100\n"
      "globalDefault: false\npriority: null\ngroups: []\ndata: {a: b}\n",
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata: |\n  kind: Other\n"
      "metadata:\n  name: b\n",
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  description: |\n"
      "    name: b\n  namespace: c\n",
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\nnote: \"x: y\"\nnote2: [a, b\n"
      "  , c]\n",
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n    # deeper comment\n",
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    x: |\n"
      "      argocd.argoproj.io/sync-options: Prune=false\n",
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n"
      "    argocd.argoproj.io/sync-options: Prune=false\n"
      "    argocd.argoproj.io/sync-options: Validate=false\n",
      "# Title\n\nSome prose: with a colon.\n",
      "apiVersion: v1\nkind: Service\n",
      "",
  };
  for (const std::string& text : texts) ExpectSameIdentity(text, text);
}

TEST(DiffObject, ThePlainFormIsReadWithoutTheYamlParserAndTheRestOnFirstUse) {
  // A document whose body is not YAML: its identity is read from the header, its fields are
  // read (and found missing) only when a rule asks for them.
  const std::string text =
      "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: job\n  namespace: team\n"
      "spec:\n  template: [unclosed\n";
  const DiffObject object = ParseDiffObject(text);
  EXPECT_EQ(object.group, "apps");
  EXPECT_EQ(object.kind, "StatefulSet");
  EXPECT_EQ(object.name, "job");
  EXPECT_EQ(object.namespace_name, "team");
  EXPECT_TRUE(object.Document().IsNull());
  // The same below metadata's labels: they are not read.
  const std::string labels =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels:\n    x: y\n    - z\n";
  EXPECT_EQ(ParseDiffObject(labels).name, "a");
}

}  // namespace
}  // namespace hkim

// diff shows a multi-line value written as one double-quoted scalar (a NAD's CNI config) as its
// own lines, so that a change to one field is one line of the diff.
#include "diff/diff_text.h"

#include <gtest/gtest.h>

#include "diff/bundle_diff.h"

namespace hkim {
namespace {

std::string Nad(const std::string& mtu) {
  return "apiVersion: k8s.cni.cncf.io/v1\n"
         "kind: NetworkAttachmentDefinition\n"
         "metadata:\n"
         "  name: eno5np0-network\n"
         "spec:\n"
         "  config: \"{\\n  \\\"cniVersion\\\": \\\"1.0.0\\\",\\n  \\\"mtu\\\": " +
         mtu + ",\\n  \\\"name\\\": \\\"eno5np0-network\\\"\\n}\"\n";
}

TEST(DiffText, AQuotedMultilineValueIsShownAsItsLines) {
  EXPECT_EQ(ExpandQuotedMultilineValues(Nad("9000")),
            "apiVersion: k8s.cni.cncf.io/v1\n"
            "kind: NetworkAttachmentDefinition\n"
            "metadata:\n"
            "  name: eno5np0-network\n"
            "spec:\n"
            "  config: |\n"
            "    {\n"
            "      \"cniVersion\": \"1.0.0\",\n"
            "      \"mtu\": 9000,\n"
            "      \"name\": \"eno5np0-network\"\n"
            "    }\n");
  // Anything else is left as it is.
  EXPECT_EQ(ExpandQuotedMultilineValues("a: \"one line\"\nb: 2\n"), "a: \"one line\"\nb: 2\n");
}

TEST(DiffText, ANadMtuChangeIsOneLineOfTheDiff) {
  RenderedBundle wanted;
  wanted.bundle_name = "lab";
  wanted.files.push_back({"nad.yaml", "t.mustache", Nad("4200")});
  const BundleDiff diff = DiffBundle(wanted, {{"nad.yaml", Nad("9000")}});
  ASSERT_EQ(diff.changes.size(), 1u);
  const std::string& shown = diff.changes[0].unified_diff;
  EXPECT_NE(shown.find("-      \"mtu\": 9000,\n+      \"mtu\": 4200,\n"), std::string::npos) << shown;
  EXPECT_EQ(shown.find("cniVersion\\\""), std::string::npos) << shown;  // no escaped JSON line
}

}  // namespace
}  // namespace hkim

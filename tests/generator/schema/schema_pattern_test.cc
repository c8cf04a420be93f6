#include "schema/pattern.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "support/embedded_files.h"
#include "test_files.h"

namespace hkim {
namespace {

using test_files::AllStrings;
using test_files::ReadFile;

// Every `pattern` of the embedded schema (data under enum/const/default/examples excluded).
void CollectPatterns(const nlohmann::json& node, std::set<std::string>& out) {
  if (node.is_array()) {
    for (const nlohmann::json& item : node) CollectPatterns(item, out);
  } else if (node.is_object()) {
    for (const auto& [key, value] : node.items()) {
      if (key == "pattern" && value.is_string()) out.insert(value.get<std::string>());
      if (key != "enum" && key != "const" && key != "default" && key != "examples") {
        CollectPatterns(value, out);
      }
    }
  }
}

std::set<std::string> SchemaPatterns() {
  const std::string_view* text = FindEmbeddedFile("schemas/profile.schema.json");
  if (text == nullptr) return {};
  std::set<std::string> patterns;
  CollectPatterns(nlohmann::json::parse(*text), patterns);
  return patterns;
}

// The texts the patterns are held to: every short string of characters the patterns treat
// specially, every word of the shipped profiles, values that match each kind of field, and
// each of them with a trailing newline or spaces around it (where `$` and `\s` differ first).
std::vector<std::string> Corpus() {
  std::vector<std::string> base = AllStrings("a0Z.-/: _\n", 3);
  for (const std::string& value : std::vector<std::string>{"barcelona", "barcelona-h100-cx7", "4.16", "4.100", "v1.2.3", "1.2.3", "v24.9.0",
        "sha256:" + std::string(64, 'a'), "sha256:" + std::string(63, 'a'), "0000:3b:00.0",
        "0000:3b:00.8", "0x101b", "101b", "https://example.com/x", "oci://ghcr.io/x", "http://",
        "git@github.com:org/repo.git", "ssh://git@host/r", "gpu-operator-certified.v24.9.0",
        "ocp.v4.16", "10Gi", "500m", "1.5", "1e3", "mlx5_0", "mlx5_0:1", "NCCL_IB_HCA",
        "_X", "9X", "ffffffff,00000000", "ffffffff,", "a.b/c", "example.com/name",
        "nvidia.com/gpu", "openshift.io/mlx5_rail0", "-a", "a-", std::string(63, 'a'),
        std::string(64, 'a'), "é", "a\tb", "/abs", "a b"}) {
    base.push_back(value);
  }
  for (const auto& entry : std::filesystem::directory_iterator(HKIM_SOURCE_DIR "/profiles")) {
    std::istringstream words(ReadFile(entry.path()));
    for (std::string word; words >> word;) base.push_back(word);
  }
  std::vector<std::string> corpus;
  for (const std::string& text : base) {
    for (const std::string& variant : {text, text + "\n", " " + text, text + " "}) {
      corpus.push_back(variant);
    }
  }
  return corpus;
}

TEST(SchemaPattern, MatchesWhatStdRegexMatchesForEveryPatternOfTheSchema) {
  const std::set<std::string> patterns = SchemaPatterns();
  ASSERT_GT(patterns.size(), 20u);
  const std::vector<std::string> corpus = Corpus();
  for (const std::string& pattern : patterns) {
    const std::regex ecmascript(pattern);  // what valijson would have used
    const SchemaPattern pcre2(pattern);
    int matched = 0;
    for (const std::string& text : corpus) {
      const bool expected = std::regex_search(text, ecmascript);
      matched += expected;
      ASSERT_EQ(pcre2.Search(text), expected) << "pattern " << pattern << " on '" << text << "'";
    }
    EXPECT_GT(matched, 0) << "no text of the corpus matches " << pattern;
  }
}

TEST(SchemaPattern, DollarMatchesOnlyAtTheVeryEndAndSearchIsUnanchored) {
  EXPECT_FALSE(SchemaPattern("^a$").Search("a\n"));
  EXPECT_TRUE(SchemaPattern("^a$").Search("a"));
  EXPECT_TRUE(SchemaPattern("b").Search("abc"));
  EXPECT_FALSE(SchemaPattern("^b").Search("abc"));
}

TEST(SchemaPattern, AnInvalidPatternIsNamedInTheError) {
  try {
    SchemaPattern bad("^[a-z");
    FAIL() << "an unterminated bracket compiled";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("'^[a-z'"), std::string::npos) << e.what();
  }
}

TEST(SchemaPattern, RenamesPatternKeywordsButNotPropertiesOrDataAndRestoresThem) {
  const nlohmann::json original = nlohmann::json::parse(R"({
    "properties": {
      "pattern": {"type": "string", "pattern": "^a$"},
      "name": {"enum": [{"pattern": "data"}], "default": {"pattern": "x"}}
    },
    "items": [{"pattern": "^b$"}]
  })");
  nlohmann::json schema = original;
  {
    const Pcre2PatternKeywords renamed(schema);
    EXPECT_TRUE(schema["properties"].contains("pattern"));  // a property of that name
    EXPECT_FALSE(schema["properties"]["pattern"].contains("pattern"));
    EXPECT_EQ(schema["properties"]["pattern"].size(), 2u);
    EXPECT_EQ(schema["properties"]["name"]["enum"][0]["pattern"], "data");
    EXPECT_EQ(schema["properties"]["name"]["default"]["pattern"], "x");
    EXPECT_FALSE(schema["items"][0].contains("pattern"));
    EXPECT_EQ(schema["items"][0].size(), 1u);
    EXPECT_NE(schema, original);
  }
  EXPECT_EQ(schema, original);
}

}  // namespace
}  // namespace hkim

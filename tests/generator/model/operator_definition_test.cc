// Every operator is one definition (model/operator_catalog.h): the stages read its row, and no
// source outside the definition compares or spells an operator's key.

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "model/operator_catalog.h"
#include "model/operator_versions.h"
#include "test_support.h"

namespace hkim {
namespace {

namespace fs = std::filesystem;

// The files allowed to spell operator keys: the definitions themselves, and the build-time tool
// that indexes catalog/releases.json's sections (it links nothing of the model).
const std::set<std::string> kDefinitionFiles = {
    "generator/model/operator_catalog.cc",
    "generator/model/tools/catalog_sections.cc",
};

// A line that holds a string equal to an operator's key but means something else (a profile
// field that shares the name) says so with this marker in a comment on the same line.
constexpr const char* kMarker = "not an operator key:";

/// "path:line: \"literal\"" for each string literal in `text` that is one of `keys` or a
/// profile pointer under one; comments are skipped, raw strings read whole, and a line
/// carrying kMarker is left out.
std::vector<std::string> KeyLiterals(const std::string& path, const std::string& text,
                                     const std::set<std::string>& keys) {
  std::vector<std::string> found;
  std::vector<std::string> lines{""};
  for (char c : text) {
    if (c == '\n')
      lines.push_back("");
    else
      lines.back() += c;
  }
  int line = 1;
  size_t i = 0;
  // The key itself, or a profile pointer under it ("/operators/<key>/install").
  auto names_key = [&](const std::string& literal) {
    if (keys.count(literal)) return true;
    for (const std::string& key : keys) {
      const std::string pointer = "/operators/" + key;
      for (size_t at = literal.find(pointer); at != std::string::npos;
           at = literal.find(pointer, at + 1)) {
        const size_t end = at + pointer.size();
        if (end == literal.size() || literal[end] == '/') return true;
      }
    }
    return false;
  };
  auto report = [&](const std::string& literal, int at) {
    if (!names_key(literal)) return;
    if (lines[at - 1].find(kMarker) != std::string::npos) return;
    found.push_back(path + ":" + std::to_string(at) + ": \"" + literal + "\"");
  };
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (text.compare(i, 2, "//") == 0) {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (text.compare(i, 2, "/*") == 0) {
      const size_t end = text.find("*/", i + 2);
      const size_t stop = end == std::string::npos ? text.size() : end + 2;
      line += static_cast<int>(std::count(text.begin() + i, text.begin() + stop, '\n'));
      i = stop;
    } else if (c == '\'') {
      // A character literal ('"' must not open a string).
      ++i;
      while (i < text.size() && text[i] != '\'' && text[i] != '\n') i += text[i] == '\\' ? 2 : 1;
      ++i;
    } else if (c == '"') {
      const bool raw = i > 0 && text[i - 1] == 'R';
      const int at = line;
      if (raw) {
        const size_t open = text.find('(', i);
        const std::string close = ")" + text.substr(i + 1, open - i - 1) + "\"";
        const size_t end = text.find(close, open);
        const size_t stop = end == std::string::npos ? text.size() : end + close.size();
        report(text.substr(open + 1, end - open - 1), at);
        line += static_cast<int>(std::count(text.begin() + i, text.begin() + stop, '\n'));
        i = stop;
        continue;
      }
      std::string literal;
      ++i;
      while (i < text.size() && text[i] != '"' && text[i] != '\n') {
        if (text[i] == '\\' && i + 1 < text.size()) literal += text[i++];
        literal += text[i++];
      }
      ++i;
      report(literal, at);
    } else {
      ++i;
    }
  }
  return found;
}

std::set<std::string> CatalogKeys() {
  std::set<std::string> keys;
  for (const OperatorFacts& facts : OperatorCatalog()) keys.insert(facts.key);
  return keys;
}

TEST(OperatorDefinition, NoGeneratorSourceOutsideTheDefinitionsSpellsAnOperatorKey) {
  const fs::path root = HKIM_SOURCE_DIR;
  std::vector<std::string> found;
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(root / "generator")) {
    const std::string ext = entry.path().extension().string();
    if (entry.is_regular_file() && (ext == ".cc" || ext == ".h")) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_GT(files.size(), 100u);
  for (const fs::path& file : files) {
    const std::string relative = fs::relative(file, root).generic_string();
    if (kDefinitionFiles.count(relative)) continue;
    for (std::string& hit :
         KeyLiterals(relative, test_support::ReadFile(file.string()), CatalogKeys()))
      found.push_back(std::move(hit));
  }
  std::string message;
  for (const std::string& hit : found) message += hit + "\n";
  EXPECT_TRUE(found.empty())
      << "these lines spell an operator's key outside its definition "
         "(generator/model/operator_catalog.cc); read the definition instead (OperatorCatalog(), "
         "FactsOf(op), the typed operator's key, or the operator's named row), or, where the "
         "string is a profile field of the same name, say \"// " << kMarker << " <what it is>\" "
         "on the line:\n"
      << message;
}

TEST(OperatorDefinition, ScanNamesTheFileAndLineOfAKeyComparison) {
  const std::string source =
      "// \"gpu_operator\" in a comment is fine\n"
      "if (key == \"gpu_operator\") Plan();\n"
      "const char* s = \"kueue-system\"; char q = '\"';\n"
      "for (const char* k : {\"nfd\", \"x\"}) {}\n"
      "const char* help = R\"(a \"volcano\"\n"
      "volcano)\"; x = \"vf_config\";\n"
      "Section(json, \"kueue\");  // not an operator key: scheduling.kueue\n"
      "/* \"network_operator\"\n */ y = \"network_operator\";\n"
      "if (p == \"/operators/nfd/install\" || p == \"/operators/nfdx\") {}\n";
  EXPECT_EQ(KeyLiterals("plan/x.cc", source, CatalogKeys()),
            (std::vector<std::string>{"plan/x.cc:2: \"gpu_operator\"", "plan/x.cc:4: \"nfd\"",
                                      "plan/x.cc:6: \"vf_config\"",
                                      "plan/x.cc:9: \"network_operator\"",
                                      "plan/x.cc:10: \"/operators/nfd/install\""}));
}

TEST(OperatorDefinition, EveryDefinitionReadsItsOwnSectionAndNamesItsInstall) {
  std::set<std::string> keys;
  for (const OperatorFacts& facts : OperatorCatalog()) {
    SCOPED_TRACE(facts.key);
    EXPECT_TRUE(keys.insert(facts.key).second) << "two definitions of one key";
    ASSERT_NE(facts.in, nullptr);
    ASSERT_NE(facts.in_mutable, nullptr);
    ASSERT_NE(facts.read, nullptr);
    EXPECT_FALSE(facts.title.empty());
    EXPECT_TRUE(facts.openshift || facts.kubernetes);
    for (bool openshift : {true, false}) {
      // Read as a profile that lists it: the typed operator is the row's, under its pointer.
      Operators ops = ReadOperators(nlohmann::json{{facts.key, nlohmann::json::object()}},
                                    openshift, "c");
      const OperatorCommon* op = facts.in(ops);
      ASSERT_NE(op, nullptr);
      EXPECT_EQ(op->key, facts.key);
      EXPECT_EQ(op->pointer, facts.Pointer());
      EXPECT_EQ(&FactsOf(*op), &facts);
      EXPECT_EQ(OperatorByKey(ops, facts.key), op);
      EXPECT_EQ(facts.in_mutable(ops), op);
      // Unlisted, it is there exactly where the platform has it by default.
      const Operators defaults = ReadOperators(nlohmann::json::object(), openshift, "c");
      EXPECT_EQ(facts.in(defaults) != nullptr,
                openshift ? facts.default_on_openshift : facts.default_on_kubernetes);
      if (facts.On(openshift) && (facts.olm.package.size() || facts.chart.chart.size())) {
        const InstallSource& install = facts.InstallOn(openshift);
        EXPECT_EQ(op->package, install.package);
        EXPECT_EQ(op->chart, install.chart);
        EXPECT_EQ(op->namespace_name, install.namespace_name);
      }
    }
    if (!facts.release.section.empty()) {
      // Its release line is in catalog/releases.json, and the default version is one of it.
      ASSERT_NE(facts.release.listed, nullptr);
      ASSERT_NE(facts.release.versions, nullptr);
      ASSERT_NE(facts.release.versions_text, nullptr);
      EXPECT_FALSE(facts.release.versions().empty());
      const Operators ops =
          ReadOperators(nlohmann::json{{facts.key, nlohmann::json::object()}}, false, "c");
      EXPECT_TRUE(facts.release.listed(facts.in(ops)->version)) << facts.in(ops)->version;
    }
  }
  EXPECT_EQ(keys.size(), 7u);
}

}  // namespace
}  // namespace hkim

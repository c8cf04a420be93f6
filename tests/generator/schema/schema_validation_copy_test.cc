// The validator's copy of the profile schema (schema/validation_copy.h): annotations go, the
// rest stays, and validating with it says exactly what validating with the whole schema says.
#include "schema/validation_copy.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/diagnostics_format.h"
#include "support/embedded_files.h"
#include "load/load.h"
#include "schema/profile_schema.h"
#include "test_files.h"
#include "validate/validate.h"

namespace hkim {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

TEST(SchemaForValidation, DropsAnnotationsOfEverySubSchema) {
  const json schema = json::parse(R"({
    "title": "t", "description": "d", "$comment": "c", "type": "object",
    "properties": {
      "rails": {"description": "d", "type": "array",
                "items": {"x-fix": "f", "type": "string", "examples": ["a"]}},
      "level": {"oneOf": [{"description": "d", "type": "string"}, {"title": "t"}]}
    },
    "additionalProperties": {"description": "d"},
    "definitions": {"rail": {"description": "d", "minimum": 1}}
  })");
  EXPECT_EQ(SchemaForValidation(schema), json::parse(R"({
    "type": "object",
    "properties": {
      "rails": {"type": "array", "items": {"type": "string"}},
      "level": {"oneOf": [{"type": "string"}, {}]}
    },
    "additionalProperties": {},
    "definitions": {"rail": {"minimum": 1}}
  })"));
}

TEST(SchemaForValidation, KeepsFieldsNamedLikeAnnotationsAndData) {
  const json schema = json::parse(R"({
    "properties": {"description": {"type": "string", "description": "the field's text"},
                   "title": {"enum": [{"description": "data"}]}},
    "required": ["description", "title"],
    "default": {"title": "kept"},
    "dependencies": {"title": ["description"]}
  })");
  EXPECT_EQ(SchemaForValidation(schema), json::parse(R"({
    "properties": {"description": {"type": "string"},
                   "title": {"enum": [{"description": "data"}]}},
    "required": ["description", "title"],
    "default": {"title": "kept"},
    "dependencies": {"title": ["description"]}
  })"));
}

TEST(SchemaForValidation, HandsPatternAndUniqueItemsToTheConstraintsOfHkimgen) {
  const json schema = json::parse(R"({
    "properties": {"uniqueItems": {"type": "array", "uniqueItems": true},
                   "name": {"type": "string", "pattern": "^a$"}}
  })");
  EXPECT_EQ(SchemaForValidation(schema), json::parse(R"({
    "properties": {"uniqueItems": {"type": "array", "x-hkimgen-unique-items": true},
                   "name": {"type": "string", "x-hkimgen-pcre2-pattern": "^a$"}}
  })"));
}

TEST(SchemaForValidation, IsWhatTheBinaryEmbeds) {
  const std::string_view* whole = FindEmbeddedFile("schemas/profile.schema.json");
  const std::string_view* copy = FindEmbeddedFile("schemas/profile.validation.json");
  if (!whole) GTEST_SKIP() << "no schema was embedded in this build";
  ASSERT_TRUE(copy) << "the build embedded no validation copy";
  EXPECT_EQ(json::parse(*copy), SchemaForValidation(json::parse(*whole)));
  EXPECT_LT(copy->size() * 2, whole->size()) << "the copy is not much smaller";
}

/// Every value of `document` replaced in turn by a value of another kind: the profiles that
/// break each field's rule.
std::vector<json> Broken(const json& document) {
  std::vector<json> out;
  const json flat = document.flatten();
  for (const auto& [pointer, value] : flat.items()) {
    for (const json& other : {json("zz-not-valid"), json(99999), json::object({{"x", 1}}),
                              json(-1), json(true)}) {
      if (other == value) continue;
      json broken = document;
      broken[json::json_pointer(pointer)] = other;
      out.push_back(std::move(broken));
    }
  }
  return out;
}

std::string Diagnose(const LoadedProfile& profile, const ProfileSchema& schema) {
  DiagnosticSink sink;
  ValidateProfile(profile, schema, sink);
  return FormatDiagnostics(sink, {});
}

TEST(SchemaForValidation, ValidatesAsTheWholeSchemaDoes) {
  DiagnosticSink sink;
  const ProfileSchema* embedded = ProfileSchema::Embedded(sink);
  const std::string_view* whole_text = FindEmbeddedFile("schemas/profile.schema.json");
  if (!embedded || !whole_text) GTEST_SKIP() << "no schema was embedded in this build";
  std::optional<ProfileSchema> whole = ProfileSchema::Parse("whole", *whole_text, sink);
  ASSERT_TRUE(whole) << FormatDiagnostics(sink, {});

  std::vector<fs::path> files;
  for (const char* dir : {"profiles", "tests/generator/malformed", "tests/generator/lint_cases"}) {
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(HKIM_SOURCE_DIR) / dir)) {
      if (entry.path().extension() == ".yaml") files.push_back(entry.path());
    }
  }
  size_t compared = 0, with_errors = 0;
  for (const fs::path& file : files) {
    DiagnosticSink load_sink;
    std::optional<LoadedProfile> loaded =
        LoadProfileFromText(file.string(), test_files::ReadFile(file), load_sink);
    if (!loaded) continue;
    std::vector<json> documents = Broken(loaded->document);
    documents.insert(documents.begin(), loaded->document);
    for (const json& document : documents) {
      LoadedProfile profile = *loaded;
      profile.document = document;
      const std::string expected = Diagnose(profile, *whole);
      ASSERT_EQ(Diagnose(profile, *embedded), expected) << file << "\n" << document.dump();
      ++compared;
      with_errors += expected.find(": error: ") != std::string::npos;  // not the summary line
    }
  }
  EXPECT_GT(compared, 1000u);
  EXPECT_GT(with_errors, 1000u) << "too few profiles broke a rule to compare the messages";
}

}  // namespace
}  // namespace hkim

// The schema's `uniqueItems`, checked by sorting (schema/unique_items.h): the same verdicts as
// valijson's own constraint, one error per list instead of one per equal pair.
#include "schema/unique_items.h"

#include <gtest/gtest.h>

#include <string>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

namespace hkim {
namespace {

using nlohmann::json;

/// Validates `value` against `schema` with the keyword handed to our constraint (sorted) or left
/// to valijson's; returns the errors' descriptions, one per line ("" when valid).
std::string Errors(const json& schema_document, const json& value, bool sorted) {
  json document = schema_document;
  valijson::Schema schema;
  valijson::SchemaParser parser;
  if (sorted) {
    const SortedUniqueItemsKeywords renamed(document);
    UseSortedUniqueItems(parser);
    parser.populateSchema(valijson::adapters::NlohmannJsonAdapter(document), schema);
  } else {
    parser.populateSchema(valijson::adapters::NlohmannJsonAdapter(document), schema);
  }
  valijson::Validator validator;
  valijson::ValidationResults results;
  validator.validate(schema, valijson::adapters::NlohmannJsonAdapter(value), &results);
  std::string text;
  valijson::ValidationResults::Error error;
  while (results.popError(error)) {
    if (error.description.find("uniqueness") != std::string::npos) text += error.description + "\n";
  }
  return text;
}

const json kUnique = json::parse(R"({"type": "array", "uniqueItems": true})");

TEST(SortedUniqueItems, GivesValijsonsVerdictOnEveryKindOfItem) {
  for (const char* list : {
           R"([])", R"(["a"])", R"(["a", "b"])", R"(["a", "a"])", R"([1, 2, 1])",
           R"([1, "1"])", R"([true, false, true])", R"([null, null])", R"([1.5, 1.5])",
           R"([{"a": 1, "b": [2]}, {"b": [2], "a": 1}])", R"([{"a": 1}, {"a": 2}])",
           R"([[1, 2], [2, 1]])", R"([[1, 2], [1, 2]])", R"(["1:a", "1:", "a"])",
           R"([{"ab": "c"}, {"a": "bc"}])"}) {
    const json value = json::parse(list);
    EXPECT_EQ(Errors(kUnique, value, true).empty(), Errors(kUnique, value, false).empty())
        << list;
  }
}

TEST(SortedUniqueItems, ReportsTheFirstRepeatInValijsonsWords) {
  EXPECT_EQ(Errors(kUnique, json::parse(R"(["x", "y", "y", "x"])"), true),
            "Elements at indexes #1 and #2 violate uniqueness constraint.\n");
}

// valijson's own constraint reports every equal pair: 4,950 for these 100 items.
TEST(SortedUniqueItems, ReportsAListOfEqualItemsOnceNotOncePerPair) {
  const json value = json(std::vector<std::string>(100, "same"));
  EXPECT_EQ(Errors(kUnique, value, true),
            "Elements at indexes #0 and #1 violate uniqueness constraint.\n");
}

TEST(SortedUniqueItems, AcceptsEveryListWhenFalseAndAnythingNotAList) {
  const json not_unique = json::parse(R"({"uniqueItems": false})");
  EXPECT_EQ(Errors(not_unique, json::parse(R"(["a", "a"])"), true), "");
  EXPECT_EQ(Errors(kUnique, json("a"), true), "");
}

TEST(SortedUniqueItems, RenamesTheKeywordButNotAPropertyOfThatNameAndRestoresIt) {
  const json original = json::parse(R"({
    "properties": {"uniqueItems": {"type": "array", "uniqueItems": true}},
    "default": {"uniqueItems": true}
  })");
  json schema = original;
  {
    const SortedUniqueItemsKeywords renamed(schema);
    EXPECT_TRUE(schema["properties"].contains("uniqueItems"));
    EXPECT_EQ(schema["properties"]["uniqueItems"],
              json::parse(R"({"type": "array", "x-hkimgen-unique-items": true})"));
    EXPECT_EQ(schema["default"], json::parse(R"({"uniqueItems": true})"));
  }
  EXPECT_EQ(schema, original);
}

}  // namespace
}  // namespace hkim

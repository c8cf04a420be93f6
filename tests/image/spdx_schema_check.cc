// Validates JSON documents against a JSON schema with valijson (the library generator/schema
// uses): spdx_schema_check SCHEMA DOCUMENT... Exit 0 when all are valid, 1 with each error's
// JSON path otherwise. tests/image uses it with the SPDX 2.3 schema (SOURCES.md).
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

namespace {
nlohmann::json Load(const char* path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(std::string("cannot read ") + path);
  return nlohmann::json::parse(in);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: spdx_schema_check SCHEMA DOCUMENT...\n";
    return 2;
  }
  try {
    const nlohmann::json schema_json = Load(argv[1]);
    valijson::Schema schema;
    valijson::SchemaParser parser;
    parser.populateSchema(valijson::adapters::NlohmannJsonAdapter(schema_json), schema);
    int status = 0;
    for (int i = 2; i < argc; ++i) {
      const nlohmann::json document = Load(argv[i]);
      valijson::Validator validator(valijson::Validator::kStrongTypes);
      valijson::ValidationResults results;
      if (validator.validate(schema, valijson::adapters::NlohmannJsonAdapter(document), &results)) {
        std::cout << argv[i] << ": valid\n";
        continue;
      }
      status = 1;
      valijson::ValidationResults::Error error;
      while (results.popError(error)) {
        std::string where;
        for (const auto& part : error.context) where += part;
        std::cerr << argv[i] << ": " << where << ": " << error.description << '\n';
      }
    }
    return status;
  } catch (const std::exception& e) {
    std::cerr << "spdx_schema_check: error: " << e.what() << '\n';
    return 2;
  }
}

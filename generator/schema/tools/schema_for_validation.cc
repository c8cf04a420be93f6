// Build step: writes the validator's copy of the profile schema (schema/validation_copy.h),
// compact, next to the build's other generated sources; the file is rewritten only when its
// text changes, so an unchanged schema rebuilds nothing.
//   schema_for_validation SCHEMA.json OUTPUT.json
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "schema/validation_copy.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: schema_for_validation SCHEMA.json OUTPUT.json\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::cerr << argv[1] << ": cannot read the schema\n";
    return 1;
  }
  nlohmann::json schema;
  try {
    schema = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    std::cerr << argv[1] << ": the schema is not JSON: " << e.what() << "\n";
    return 1;
  }
  const std::string text = hkim::SchemaForValidation(schema).dump();
  std::ifstream old(argv[2]);
  if (old && std::string(std::istreambuf_iterator<char>(old), {}) == text) return 0;
  std::ofstream out(argv[2], std::ios::binary | std::ios::trunc);
  out << text;
  return out.flush() ? 0 : 1;
}

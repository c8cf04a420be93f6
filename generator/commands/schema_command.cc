#include "commands/schema_command.h"

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "embedded_files.h"
#include "schema_doc.h"

namespace hkim {

void SetupSchemaCommand(CLI::App& app) {
  auto options = std::make_shared<SchemaOptions>();
  CLI::App* command = app.add_subcommand(
      "schema", "Print the profile JSON Schema (for editors), or the field reference");
  command
      ->add_option("--format", options->format,
                   "json: the schema itself; markdown: docs/profile-reference.md")
      ->check(CLI::IsMember({"json", "markdown"}))
      ->capture_default_str();
  command->footer(R"(
Examples:
  hkimgen schema > profile.schema.json
  hkimgen schema --format markdown > docs/profile-reference.md

Editors: start a profile with
  # yaml-language-server: $schema=<path to profile.schema.json>
for completion and checking.)");
  command->callback([options] {
    int status = RunSchemaCommand(*options, std::cout, std::cerr);
    if (status != 0) throw CLI::RuntimeError(status);
  });
}

int RunSchemaCommand(const SchemaOptions& options, std::ostream& out, std::ostream& err) {
  const std::string_view* text = FindEmbeddedFile("schemas/profile.schema.json");
  if (text == nullptr) {
    err << "hkimgen: error: this binary embeds no profile schema [schema.missing]\n";
    return 2;
  }
  if (options.format == "json") {
    out << *text;
    if (!text->empty() && text->back() != '\n') out << '\n';
    return 0;
  }
  nlohmann::json schema = nlohmann::json::parse(*text, nullptr, false);
  if (schema.is_discarded()) {
    err << "hkimgen: error: the embedded profile schema is not valid JSON [schema.invalid]\n";
    return 2;
  }
  out << ProfileReferenceMarkdown(schema);
  return 0;
}

}  // namespace hkim

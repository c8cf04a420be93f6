#include "commands/schema_command.h"

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands/cli_support.h"
#include "support/embedded_files.h"
#include "schema/doc.h"

namespace hkim {

void SetupSchemaCommand(CLI::App& app) {
  auto options = std::make_shared<SchemaOptions>();
  auto output = std::make_shared<OutputChoice>();
  auto legacy_format = std::make_shared<std::string>();
  CLI::App* command = app.add_subcommand(
      "schema", "Print the profile JSON Schema (for editors), or the field reference");
  AddOutputOption(command, *output, {"json", "markdown"});
  command->add_option("--format", *legacy_format, "Deprecated: use -o json|markdown")
      ->check(CLI::IsMember({"json", "markdown"}));
  command->footer(R"(
Examples:
  hkimgen schema > profile.schema.json
  hkimgen schema -o markdown > docs/profile-reference.md

Editors: start a profile with
  # yaml-language-server: $schema=<path to profile.schema.json>
for completion and checking.)");
  command->callback([options, output, legacy_format] {
    if (!ResolveOutputChoice(*output, {"json", "markdown"}, "schema", "", "", std::cerr)) {
      FinishCommand(1);
    }
    options->format = output->format;
    if (!legacy_format->empty()) {
      std::cerr << "hkimgen schema: warning: --format is deprecated and goes away in the next "
                   "release [cli.deprecated]\n  fix: write -o "
                << *legacy_format << "\n";
      options->format = *legacy_format;
    }
    FinishCommand(RunSchemaCommand(*options, std::cout, std::cerr));
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

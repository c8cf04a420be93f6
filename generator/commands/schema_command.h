#pragma once

// `hkimgen schema [--format json|markdown]`: the profile JSON Schema embedded in this binary,
// or the field reference generated from it (docs/profile-reference.md).

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>

namespace hkim {

struct SchemaOptions {
  std::string format = "json";  ///< json: the schema as shipped; markdown: the field reference
};

/// Adds the `schema` sub-command to `app`.
void SetupSchemaCommand(CLI::App& app);

/// Prints to `out`; returns 0, or 2 when the binary embeds no (valid) schema.
int RunSchemaCommand(const SchemaOptions& options, std::ostream& out, std::ostream& err);

}  // namespace hkim

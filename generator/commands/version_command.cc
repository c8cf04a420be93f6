#include "commands/version_command.h"

#include <iostream>
#include <memory>

#include "commands/cli_support.h"
#include "support/version.h"

namespace hkim {

std::string VersionText() {
  const BuildInfo& b = BuildVersion();
  return "hkimgen " + b.version + "\ncommit: " + b.commit + "\nschema: sha256:" + b.schema_sha256 +
         "\n";
}

void SetupVersionCommand(CLI::App& app) {
  auto choice = std::make_shared<OutputChoice>();
  CLI::App* command =
      app.add_subcommand("version", "Print the version, the commit and the profile schema hash");
  AddOutputOption(command, *choice, {"text", "json"});
  command->footer(R"(
Examples:
  hkimgen version
  hkimgen --version
  hkimgen version -o json)");
  command->callback([choice] {
    if (!ResolveOutputChoice(*choice, {"text", "json"}, "version", "", "", std::cerr)) {
      FinishCommand(1);
    }
    FinishCommand(RunVersionCommand(choice->format, std::cout));
  });
}

int RunVersionCommand(const std::string& format, std::ostream& out) {
  if (format == "json") {
    const BuildInfo& b = BuildVersion();
    out << DumpJson(JsonReport("version", 0, DiagnosticSink{},
                               {{"version", b.version},
                                {"commit", b.commit},
                                {"schema_sha256", b.schema_sha256}}))
        << '\n';
    return 0;
  }
  out << VersionText();
  return 0;
}

}  // namespace hkim

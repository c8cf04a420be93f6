// hkimgen: one validated profile per GPU cluster → a GitOps-ready bundle.
// main only registers the sub-commands (generator/commands/) and maps CLI errors to exit codes.

#include <CLI/CLI.hpp>

#include "commands/diff_command.h"
#include "commands/doctor_command.h"
#include "commands/explain_command.h"
#include "commands/init_command.h"
#include "commands/lint_command.h"
#include "commands/render_command.h"
#include "commands/schema_command.h"
#include "commands/validate_command.h"

int main(int argc, char** argv) {
  CLI::App app{"hkimgen: validated GPU cluster profiles -> GitOps bundles for NCCL over RDMA"};
  app.require_subcommand(1);
  app.footer(
      "Run `hkimgen render --help` for examples. Exit status: 0 ok, 1 invalid input, "
      "2 I/O or internal failure.");
  hkim::SetupRenderCommand(app);
  hkim::SetupValidateCommand(app);
  hkim::SetupLintCommand(app);
  hkim::SetupExplainCommand(app);
  hkim::SetupDiffCommand(app);
  hkim::SetupSchemaCommand(app);
  hkim::SetupInitCommand(app);
  hkim::SetupDoctorCommand(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {
    return e.get_exit_code();  // a sub-command's own status; it already said why
  } catch (const CLI::ParseError& e) {
    const int status = app.exit(e);  // prints help or the usage error
    return status == 0 ? 0 : 1;      // a usage error is invalid input
  }
  return 0;
}

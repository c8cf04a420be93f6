// The sub-commands, in the order `hkimgen help` lists them. A new command adds one line here.
#include "commands/cli_support.h"
#include "commands/completion_command.h"
#include "commands/diff_command.h"
#include "commands/discover_command.h"
#include "commands/doctor_command.h"
#include "commands/explain_command.h"
#include "commands/images_command.h"
#include "commands/init_command.h"
#include "commands/lint_command.h"
#include "commands/render_command.h"
#include "commands/schema_command.h"
#include "commands/validate_command.h"
#include "commands/version_command.h"

namespace hkim {

const std::vector<CommandEntry>& CommandRegistry() {
  static const std::vector<CommandEntry> commands = {
      {"render", SetupRenderCommand},   {"validate", SetupValidateCommand},
      {"lint", SetupLintCommand},       {"explain", SetupExplainCommand},
      {"diff", SetupDiffCommand},       {"init", SetupInitCommand},
      {"schema", SetupSchemaCommand},   {"completion", SetupCompletionCommand},
      {"version", SetupVersionCommand}, {"doctor", SetupDoctorCommand},
      {"discover", SetupDiscoverCommand}, {"images", SetupImagesCommand},
  };
  return commands;
}

}  // namespace hkim

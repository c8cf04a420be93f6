#include "commands/app.h"

#include <CLI/CLI.hpp>
#include <cctype>
#include <exception>
#include <map>
#include <string_view>

#include "commands/cli_support.h"
#include "schema/profile_schema.h"
#include "support/untrusted_text.h"
#include "support/version.h"

namespace hkim {
namespace {

constexpr char kFooter[] = R"(
Examples:
  hkimgen init --platform openshift --shape barcelona-h100-cx7 --output-file profiles/my.yaml
  hkimgen validate profiles/my.yaml
  hkimgen render profiles/my.yaml -d out/my
  hkimgen help render

Run `hkimgen help COMMAND` (or `hkimgen COMMAND --help`) for its flags and examples.
Exit status: 0 ok, 1 invalid input or usage, 2 I/O or internal failure (diff
--detailed-exitcode: 2 = changes).)";

std::vector<std::string> CommandNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
  return names;
}

// `hkimgen rendr`: CLI11 would only say "arguments were not expected"; name the closest one.
bool ReportUnknownCommand(const CLI::App& app, int argc, char** argv, std::ostream& err) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.empty() || arg[0] == '-') continue;
    const std::vector<std::string> names = CommandNames(app);
    if (std::find(names.begin(), names.end(), arg) != names.end()) return false;
    err << "hkimgen: error: unknown command '" << arg << "' [cli.unknown-command]\n";
    const std::string closest = ClosestMatch(arg, names);
    if (!closest.empty()) {
      err << "  fix: did you mean `hkimgen " << closest << "`?\n";
    } else {
      err << "  fix: run `hkimgen help` for the list of commands\n";
    }
    return true;
  }
  return false;
}

// The registered command that argv names (its first argument that is not a flag: the global
// options are flags), or nullptr (none, an unknown one, `help`).
const CommandEntry* NamedCommand(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.empty() || arg[0] == '-') continue;
    for (const CommandEntry& entry : CommandRegistry()) {
      if (arg == entry.name) return &entry;
    }
    return nullptr;
  }
  return nullptr;
}

// Every command, or only the one being run: building all of CLI11's tree is a noticeable share of a
// small render. `help`, `completion` and typos need them all (to list them or find the closest).
void SetupCommands(CLI::App& app, int argc, char** argv) {
  const CommandEntry* named = NamedCommand(argc, argv);
  if (named != nullptr && std::string_view(named->name) != "completion") {
    named->setup(app);
    return;
  }
  for (const CommandEntry& entry : CommandRegistry()) entry.setup(app);
}

// `hkimgen render --chek`: CLI11 would print its own text (plain, even under -o json) with no
// suggestion; this goes through the diagnostics with the closest flag the command has, as one
// JSON document under -o json. Returns true after reporting (exit 1).
bool ReportUnknownFlags(CLI::App& app, int argc, char** argv, std::ostream& out,
                        std::ostream& err) {
  const CommandEntry* named = NamedCommand(argc, argv);
  if (named == nullptr) return false;
  const CLI::App* command = nullptr;
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_name() == named->name) command = sub;
  }
  if (command == nullptr) return false;
  std::map<std::string, const CLI::Option*> flags;  // "--check", "-d": the command's and global
  for (const CLI::App* from : {command, static_cast<const CLI::App*>(&app)}) {
    for (const CLI::Option* option : from->get_options()) {
      for (const std::string& name : option->get_lnames()) flags.emplace("--" + name, option);
      for (const std::string& name : option->get_snames()) flags.emplace("-" + name, option);
    }
  }
  std::vector<std::string> unknown;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") break;  // what follows is arguments
    if (arg.size() < 2 || arg[0] != '-' || std::isdigit(static_cast<unsigned char>(arg[1]))) {
      continue;
    }
    const bool long_flag = arg[1] == '-';
    const size_t equals = arg.find('=');
    const std::string name = long_flag ? arg.substr(0, equals) : arg.substr(0, 2);
    auto found = flags.find(name);
    if (found == flags.end()) {
      unknown.push_back(name);
      continue;
    }
    const bool inline_value = long_flag ? equals != std::string::npos : arg.size() > 2;
    const bool takes_value = found->second->get_type_size_min() > 0;  // 0: a flag
    std::string value;
    if (takes_value && inline_value) {
      value = long_flag ? arg.substr(equals + 1) : arg.substr(2);
    } else if (takes_value && i + 1 < argc) {
      value = argv[++i];  // the flag's value, whatever it looks like
    }
    if ((name == "-o" || name == "--output") && value == "json") json = true;
  }
  if (unknown.empty()) return false;
  std::vector<std::string> names;
  for (const auto& [name, option] : flags) names.push_back(name);
  DiagnosticSink sink;
  for (const std::string& flag : unknown) {
    const std::string closest = ClosestMatch(flag, names);
    sink.Report(Diagnostic{
        Severity::kError, {}, "", "cli.unknown-flag",
        "unknown flag '" + flag + "' for `hkimgen " + named->name + "`",
        (closest.empty() ? std::string() : "did you mean " + closest + "? ") +
            "`hkimgen " + named->name + " --help` lists its flags"});
  }
  if (json) {
    out << DumpJson(JsonReport(named->name, 1, sink, nullptr)) << '\n';
  } else {
    PrintDiagnostics(sink, {}, err);
  }
  return true;
}

// Whether argv asks for `-o json` (`-o json`, `-ojson`, `--output json`, `--output=json`).
bool AsksForJson(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") break;
    if (arg == "-ojson" || arg == "--output=json") return true;
    const bool flag = arg == "-o" || arg == "--output";
    if (flag && i + 1 < argc && std::string_view(argv[i + 1]) == "json") return true;
  }
  return false;
}

// A usage error CLI11 found (a missing argument, a value not among the allowed ones, too many
// arguments), through the diagnostics like every other error: gcc-style text with the fix on
// stderr, or the one JSON document under -o json.
int ReportUsageError(const CLI::ParseError& e, int argc, char** argv, std::ostream& out,
                     std::ostream& err) {
  const CommandEntry* named = NamedCommand(argc, argv);
  const std::string command = named != nullptr ? named->name : "";
  const std::string shown = command.empty() ? "hkimgen" : "hkimgen " + command;
  DiagnosticSink sink;
  sink.Report(Diagnostic{Severity::kError, {}, "", "cli.usage",
                         UntrustedText(e.what(), kMaxMessageBytes),
                         "`" + shown + " --help` lists its arguments, flags and their values"});
  if (AsksForJson(argc, argv)) {
    out << DumpJson(JsonReport(command.empty() ? "hkimgen" : command, 1, sink, nullptr)) << '\n';
  } else {
    PrintDiagnostics(sink, {}, err);
  }
  return 1;
}

void SetupHelpCommand(CLI::App& app, std::ostream& out) {
  auto topic = std::make_shared<std::string>();
  CLI::App* help = app.add_subcommand("help", "Print the command list, or one command's help");
  help->add_option("COMMAND", *topic, "The command to explain");
  help->footer(R"(
Examples:
  hkimgen help
  hkimgen help render)");
  help->callback([&app, &out, topic] {
    // Through the formatter: App::help() would describe the running `help` command itself.
    if (topic->empty()) {
      out << app.get_formatter()->make_help(&app, "hkimgen", CLI::AppFormatMode::Normal);
      return;
    }
    for (const CLI::App* sub : app.get_subcommands({})) {
      if (sub->get_name() == *topic) {
        out << app.get_formatter()->make_help(sub, "hkimgen " + *topic,
                                              CLI::AppFormatMode::Normal);
        return;
      }
    }
    std::string name = *topic;
    char* argv[] = {nullptr, name.data()};
    ReportUnknownCommand(app, 2, argv, std::cerr);
    FinishCommand(1);
  });
}

}  // namespace

int RunHkimgen(int argc, char** argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"hkimgen: validated GPU cluster profiles -> GitOps bundles for NCCL over RDMA",
               "hkimgen"};
  app.require_subcommand(0, 1);
  app.fallthrough();  // global flags may follow the sub-command: `hkimgen render --no-color P`
  app.footer(kFooter);
  bool show_version = false;
  app.add_flag("--version", show_version, "Print the version, commit and schema hash");
  app.add_flag("--no-color", Globals().no_color,
               "No colour in the output (also when NO_COLOR is set or output is not a terminal)");
  SetupCommands(app, argc, argv);
  SetupHelpCommand(app, out);
  if (ReportUnknownCommand(app, argc, argv, err)) return 1;
  if (ReportUnknownFlags(app, argc, argv, out, err)) return 1;
  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {
    return e.get_exit_code();  // a sub-command's own status; it already said why
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e, out, err);  // --help, help-all
    return ReportUsageError(e, argc, argv, out, err);           // invalid input: exit 1
  } catch (const std::exception& e) {
    // A safety net, never the plan: every input has its own diagnostic (tests/ and the fuzzers
    // hold hkimgen to that). Without it a slip would abort with a core dump instead of exit 2.
    err << "hkimgen: internal error: " << e.what()
        << " [internal.exception]\n  fix: please report this with the input that caused it\n";
    return 2;
  }
  if (show_version) {
    out << VersionText();
  } else if (app.get_subcommands().empty()) {
    out << app.help();  // bare `hkimgen`: the command list, as kubectl and helm do
  }
  return 0;
}

}  // namespace hkim

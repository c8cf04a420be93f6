#pragma once

// What every sub-command shares on the command line, so that one flag has one meaning
// everywhere (kubectl/Helm habits):
// - `-o, --output FORMAT` chooses the output format (text|json for reports, yaml|json for
//   objects); folders are `-d, --output-dir DIR`, files `--output-file FILE`;
// - `--no-color` / NO_COLOR / a non-terminal turn colour off;
// - with `-o json` every command prints ONE JSON document on stdout, of one shape
//   (JsonReport), and nothing on stderr.
// The old `-o DIR` / `-o FILE` spellings keep working for one release with a warning when the
// value is clearly a path, and are refused when it could be either (OutputChoice).

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "support/diagnostics.h"
#include "support/diagnostics_format.h"

namespace hkim {

/// Options that apply to every sub-command (given before or after the sub-command's name).
struct GlobalOptions {
  bool no_color = false;  ///< --no-color
};

/// The one instance main fills in.
GlobalOptions& Globals();

/// True when text written to `fd` may carry ANSI colour: a terminal, NO_COLOR unset or empty,
/// TERM not "dumb", and no --no-color.
bool ColorEnabled(int fd);

/// Colours the severity words ("error:", "warning:", "note:") and "fix:" of formatted
/// diagnostics (FormatDiagnostics output); returns `text` unchanged when `on` is false.
std::string Colorize(const std::string& text, bool on);

/// What `-o/--output` (and the deprecated path meaning) resolved to.
struct OutputChoice {
  std::string raw;              ///< as given; empty when -o was not given
  std::string format;           ///< one of the command's formats (its first when not given)
  std::string legacy_path;      ///< the old meaning: a folder or file named with -o
};

/// Adds `-o,--output FORMAT` to `command`. `formats` lists the formats it accepts, the first
/// being the default; the value is checked by ResolveOutputChoice after parsing (not by CLI11),
/// so that the old `-o PATH` spelling can be recognised.
CLI::Option* AddOutputOption(CLI::App* command, OutputChoice& choice,
                             const std::vector<std::string>& formats);

/// The formats AddOutputOption registered for the sub-command `command` (for completion).
std::vector<std::string> OutputFormatsOf(const std::string& command);

/// Interprets `choice.raw`: a format name sets `format`; a value that is clearly a path (it
/// holds '/' or ends in .yaml/.yml, or names an existing `path_kind` — "folder" or "file")
/// sets `legacy_path` and warns on `err` that `new_flag` is the new spelling; anything else is
/// refused: returns false after explaining on `err` (the caller exits 1).
bool ResolveOutputChoice(OutputChoice& choice, const std::vector<std::string>& formats,
                         const std::string& command, const std::string& new_flag,
                         const std::string& path_kind, std::ostream& err);

/// The one JSON shape of `-o json` for every command:
///   {"command", "ok", "exit_code", "errors", "warnings", "diagnostics": [...], "result": ...}
/// `result` is the command's own payload (null when it produced none).
nlohmann::json JsonReport(const std::string& command, int exit_code, const DiagnosticSink& sink,
                          nlohmann::json result);

/// `document` as `-o json` prints it: indented by 2, non-ASCII kept, and bytes that are not
/// UTF-8 (a profile value, a file name) replaced by U+FFFD instead of throwing.
std::string DumpJson(const nlohmann::json& document);

/// Prints the diagnostics of `sink` as text on `err` (coloured when stderr is a terminal),
/// nothing when there are none.
void PrintDiagnostics(const DiagnosticSink& sink, const SourceTexts& sources, std::ostream& err);

/// The same, leaving out the notes (accepted warnings, hints) unless `notes`: render's -q.
void PrintDiagnostics(const DiagnosticSink& sink, const SourceTexts& sources, std::ostream& err,
                      bool notes);

/// Reports a usage error that a command's callback finds (two options that do not go together, a
/// flag it needs): rule "cli.usage" through the diagnostics on `err`, or as the one JSON report
/// on `out` when `format` is "json". Returns 1, the exit status of invalid input.
int ReportUsage(const std::string& command, const std::string& format, const std::string& message,
                const std::string& fix, std::ostream& out, std::ostream& err);

/// Every sub-command, in the order `hkimgen help` lists them (commands/registry.cc). A new
/// command adds one line there; main stays as it is.
struct CommandEntry {
  const char* name;
  void (*setup)(CLI::App& app);
};
const std::vector<CommandEntry>& CommandRegistry();

/// Ends the sub-command's callback with `status` (0 returns; anything else unwinds to main
/// through CLI::RuntimeError, which main turns into the exit status).
void FinishCommand(int status);

}  // namespace hkim

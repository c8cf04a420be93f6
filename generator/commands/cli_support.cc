#include "commands/cli_support.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>

namespace hkim {

GlobalOptions& Globals() {
  static GlobalOptions options;
  return options;
}

bool ColorEnabled(int fd) {
  if (Globals().no_color) return false;
  // https://no-color.org: any non-empty NO_COLOR turns colour off.
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && *no_color != '\0') return false;
  const char* term = std::getenv("TERM");
  if (term != nullptr && std::string(term) == "dumb") return false;
  return isatty(fd) == 1;
}

namespace {

constexpr char kReset[] = "\033[0m";

// Colours the first occurrence of `word` in `line` when it starts the line or follows ": ".
bool PaintWord(std::string& line, const std::string& word, const char* colour) {
  size_t at = std::string::npos;
  if (line.compare(0, word.size(), word) == 0) {
    at = 0;
  } else {
    size_t found = line.find(": " + word);
    if (found != std::string::npos) at = found + 2;
  }
  if (at == std::string::npos) return false;
  line.insert(at + word.size(), kReset);
  line.insert(at, colour);
  return true;
}

}  // namespace

std::string Colorize(const std::string& text, bool on) {
  if (!on) return text;
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    std::string line = text.substr(start, end == std::string::npos ? end : end - start);
    if (line.compare(0, 7, "  fix: ") == 0) {
      line.insert(6, kReset);
      line.insert(2, "\033[1;32m");
    } else if (line.compare(0, 2, "  ") != 0 && line.compare(0, 1, " ") != 0) {
      PaintWord(line, "error:", "\033[1;31m") || PaintWord(line, "warning:", "\033[1;35m") ||
          PaintWord(line, "note:", "\033[1;36m");
    }
    out += line;
    if (end == std::string::npos) break;
    out += '\n';
    start = end + 1;
  }
  return out;
}

namespace {
std::map<std::string, std::vector<std::string>>& FormatTable() {
  static std::map<std::string, std::vector<std::string>> table;
  return table;
}
}  // namespace

std::vector<std::string> OutputFormatsOf(const std::string& command) {
  auto it = FormatTable().find(command);
  return it == FormatTable().end() ? std::vector<std::string>{} : it->second;
}

CLI::Option* AddOutputOption(CLI::App* command, OutputChoice& choice,
                             const std::vector<std::string>& formats) {
  choice.format = formats.front();
  FormatTable()[command->get_name()] = formats;
  std::string names;
  for (const std::string& f : formats) names += (names.empty() ? "" : "|") + f;
  return command
      ->add_option("-o,--output", choice.raw,
                   "Output format: " + names + " (default " + formats.front() + ")")
      ->type_name("FORMAT");
}

bool ResolveOutputChoice(OutputChoice& choice, const std::vector<std::string>& formats,
                         const std::string& command, const std::string& new_flag,
                         const std::string& path_kind, std::ostream& err) {
  if (choice.raw.empty()) return true;
  if (std::find(formats.begin(), formats.end(), choice.raw) != formats.end()) {
    choice.format = choice.raw;
    return true;
  }
  std::string names;
  for (const std::string& f : formats) names += (names.empty() ? "" : ", ") + f;
  const std::string& v = choice.raw;
  auto ends_with = [&v](const std::string& tail) {
    return v.size() > tail.size() && v.compare(v.size() - tail.size(), tail.size(), tail) == 0;
  };
  std::error_code ec;
  const bool exists = path_kind == "folder" ? std::filesystem::is_directory(v, ec)
                                            : std::filesystem::is_regular_file(v, ec);
  const bool clearly_path = !path_kind.empty() &&
                            (v.find('/') != std::string::npos || ends_with(".yaml") ||
                             ends_with(".yml") || exists);
  if (clearly_path) {
    err << "hkimgen " << command << ": warning: -o " << v << " names a " << path_kind
        << ": that spelling is deprecated and goes away in the next release [cli.deprecated]\n"
        << "  fix: write " << new_flag << " " << v << " (-o/--output now chooses the output "
        << "format: " << names << ")\n";
    choice.legacy_path = v;
    return true;
  }
  err << "hkimgen " << command << ": error: -o '" << v << "' is not an output format ("
      << names << ")";
  if (!path_kind.empty()) err << " nor clearly a " << path_kind;
  err << " [cli.usage]\n  fix: ";
  if (!path_kind.empty()) {
    err << "for the " << path_kind << " write " << new_flag << " " << v << "; for a format write "
        << "-o " << formats.front() << " (one of " << names << ")\n";
  } else {
    err << "write -o with one of " << names << "\n";
  }
  return false;
}

std::string DumpJson(const nlohmann::json& document) {
  return document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json JsonReport(const std::string& command, int exit_code, const DiagnosticSink& sink,
                          nlohmann::json result) {
  return nlohmann::json{{"command", command},
                        {"ok", exit_code == 0},
                        {"exit_code", exit_code},
                        {"errors", sink.ErrorCount()},
                        {"warnings", sink.WarningCount()},
                        {"diagnostics", DiagnosticsToJson(sink)},
                        {"result", std::move(result)}};
}

void PrintDiagnostics(const DiagnosticSink& sink, const SourceTexts& sources, std::ostream& err) {
  if (sink.diagnostics().empty()) return;
  err << Colorize(FormatDiagnostics(sink, sources), ColorEnabled(STDERR_FILENO));
}

void PrintDiagnostics(const DiagnosticSink& sink, const SourceTexts& sources, std::ostream& err,
                      bool notes) {
  if (notes) return PrintDiagnostics(sink, sources, err);
  DiagnosticSink kept;
  for (const Diagnostic& d : sink.diagnostics())
    if (d.severity != Severity::kNote) kept.Report(d);
  PrintDiagnostics(kept, sources, err);
}

int ReportUsage(const std::string& command, const std::string& format, const std::string& message,
                const std::string& fix, std::ostream& out, std::ostream& err) {
  DiagnosticSink sink;
  sink.Report(Diagnostic{Severity::kError, {}, "", "cli.usage", message, fix});
  if (format == "json") {
    out << DumpJson(JsonReport(command, 1, sink, nullptr)) << '\n';
  } else {
    PrintDiagnostics(sink, {}, err);
  }
  return 1;
}

void FinishCommand(int status) {
  if (status != 0) throw CLI::RuntimeError(status);
}

}  // namespace hkim

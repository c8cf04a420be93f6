#include "diagnostics_format.h"

#include <sstream>

namespace hkim {

const char* SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kNote:
      return "note";
  }
  return "error";
}

std::string FormatDiagnostic(const Diagnostic& d, const SourceTexts& sources) {
  std::ostringstream out;
  const SourceLocation& at = d.location;
  if (!at.file.empty()) {
    out << at.file << ':';
    if (at.known()) {
      out << at.line << ':';
      if (at.column > 0) out << at.column << ':';
    }
    out << ' ';
  }
  out << SeverityName(d.severity) << ": " << d.message;
  if (!d.rule.empty()) out << " [" << d.rule << ']';
  out << '\n';
  if (!d.data_path.empty()) out << "  at " << d.data_path << '\n';
  auto file = sources.find(at.file);
  if (at.known() && file != sources.end() && at.line <= static_cast<int>(file->second.size())) {
    const std::string number = std::to_string(at.line);
    const std::string gutter(number.size(), ' ');
    out << ' ' << number << " | " << file->second[at.line - 1] << '\n';
    if (at.column > 0) {
      // Keep tabs so the caret lines up under the same column in a terminal.
      std::string pad;
      const std::string& line = file->second[at.line - 1];
      for (int i = 0; i + 1 < at.column; ++i) {
        pad += (i < static_cast<int>(line.size()) && line[i] == '\t') ? '\t' : ' ';
      }
      out << ' ' << gutter << " | " << pad << "^\n";
    }
  }
  if (!d.fix.empty()) out << "  fix: " << d.fix << '\n';
  return out.str();
}

std::string FormatSummary(int errors, int warnings) {
  return std::to_string(errors) + (errors == 1 ? " error, " : " errors, ") +
         std::to_string(warnings) + (warnings == 1 ? " warning" : " warnings");
}

std::string FormatDiagnostics(const DiagnosticSink& sink, const SourceTexts& sources) {
  std::string out;
  for (const Diagnostic& d : sink.diagnostics()) out += FormatDiagnostic(d, sources);
  if (!sink.diagnostics().empty()) {
    out += FormatSummary(sink.ErrorCount(), sink.WarningCount()) + "\n";
  }
  return out;
}

nlohmann::json DiagnosticToJson(const Diagnostic& d) {
  return nlohmann::json{{"file", d.location.file},
                        {"line", d.location.line},
                        {"column", d.location.column},
                        {"severity", SeverityName(d.severity)},
                        {"rule", d.rule},
                        {"message", d.message},
                        {"path", d.data_path},
                        {"fix", d.fix}};
}

nlohmann::json DiagnosticsToJson(const DiagnosticSink& sink) {
  nlohmann::json array = nlohmann::json::array();
  for (const Diagnostic& d : sink.diagnostics()) array.push_back(DiagnosticToJson(d));
  return array;
}

}  // namespace hkim

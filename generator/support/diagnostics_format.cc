#include "support/diagnostics_format.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "support/input_limits.h"
#include "support/untrusted_text.h"
#include "support/utf8.h"

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

namespace {

/// The source line as shown under a diagnostic: at most limits::kMaxShownLineBytes of it around
/// `column` ("..." marks a cut), invalid and control bytes as '?' (never echoed raw), and in
/// `pad` the blanks (tabs kept, one per character) that put a caret under `column`.
void ShowLine(const std::string& line, int column, std::string* shown, std::string* pad) {
  const std::size_t at = column > 0 ? static_cast<std::size_t>(column - 1) : 0;
  std::size_t start = 0;
  std::size_t end = line.size();
  if (line.size() > limits::kMaxShownLineBytes) {
    const std::size_t half = limits::kMaxShownLineBytes / 2;
    start = at > half ? std::min(at - half, line.size() - limits::kMaxShownLineBytes) : 0;
    end = start + limits::kMaxShownLineBytes;
    while (start > 0 && start < line.size() && (line[start] & 0xc0) == 0x80) ++start;
  }
  if (start > 0) {
    *shown = "...";
    *pad = "   ";
  }
  for (std::size_t i = start; i < end;) {
    char32_t code = 0;
    std::size_t length = DecodeUtf8(line, i, &code);
    const bool bad = length == 0 || (code != '\t' && IsForbiddenCharacter(code)) || code == '\r';
    if (length == 0) length = 1;
    if (bad) {
      *shown += '?';
    } else {
      shown->append(line, i, length);
    }
    if (i < at) *pad += code == '\t' && !bad ? '\t' : ' ';
    i += length;
  }
  if (end < line.size()) *shown += "...";
  for (std::size_t i = line.size(); i < at && end == line.size(); ++i) *pad += ' ';  // past the end
}

// The last guard before a terminal: every field of a diagnostic may quote outside text (an
// object name, a label value, a path), so each is escaped and cut here even when the stage that
// wrote it already quoted its values (escaping leaves text without control characters as it
// is). One field stays a few KiB, so no diagnostic grows with its input.
std::string Field(const std::string& text) { return UntrustedText(text, kMaxMessageBytes); }

// How many findings of one rule FormatDiagnostics prints before it only counts them.
constexpr std::size_t kMaxShownPerRule = 20;

}  // namespace

std::string FormatDiagnostic(const Diagnostic& d, const SourceTexts& sources) {
  std::ostringstream out;
  const SourceLocation& at = d.location;
  if (!at.file.empty()) {
    out << Field(at.file) << ':';
    if (at.known()) {
      out << at.line << ':';
      if (at.column > 0) out << at.column << ':';
    }
    out << ' ';
  }
  out << SeverityName(d.severity) << ": " << Field(d.message);
  if (!d.rule.empty()) out << " [" << Field(d.rule) << ']';
  out << '\n';
  // Like a compiler's "In file included from": the way from the user's profile to the base.
  for (const SourceLocation& via : d.included_from) {
    out << "  included from " << Field(via.file);
    if (via.known()) out << ':' << via.line << (via.column > 0 ? ":" + std::to_string(via.column) : "");
    out << " (extends:)\n";
  }
  if (d.brief) return out.str();
  if (!d.data_path.empty()) out << "  at " << Field(d.data_path) << '\n';
  auto file = sources.find(at.file);
  if (at.known() && file != sources.end() && at.line <= static_cast<int>(file->second.size())) {
    const std::string number = std::to_string(at.line);
    const std::string gutter(number.size(), ' ');
    std::string shown, pad;
    ShowLine(file->second[at.line - 1], at.column, &shown, &pad);
    out << ' ' << number << " | " << shown << '\n';
    if (at.column > 0) out << ' ' << gutter << " | " << pad << "^\n";
  }
  if (!d.fix.empty()) out << "  fix: " << Field(d.fix) << '\n';
  return out.str();
}

std::string FormatSummary(int errors, int warnings) {
  return std::to_string(errors) + (errors == 1 ? " error, " : " errors, ") +
         std::to_string(warnings) + (warnings == 1 ? " warning" : " warnings");
}

std::string FormatDiagnostics(const DiagnosticSink& sink, const SourceTexts& sources) {
  std::string out;
  // A finding repeated for every object of a hostile export (100,000 nodes without a state)
  // would print megabytes: each rule shows its first findings, then says how many more there
  // are. The summary and -o json still count and list every one.
  std::map<std::string, std::size_t> shown;
  for (const Diagnostic& d : sink.diagnostics()) {
    if (++shown[d.rule] <= kMaxShownPerRule) out += FormatDiagnostic(d, sources);
  }
  for (const auto& [rule, count] : shown) {
    if (count <= kMaxShownPerRule) continue;
    out += "note: " + std::to_string(count - kMaxShownPerRule) + " more [" + Field(rule) +
           "] findings like those above are not shown (-o json lists every one)\n";
  }
  if (!sink.diagnostics().empty()) {
    out += FormatSummary(sink.ErrorCount(), sink.WarningCount()) + "\n";
  }
  return out;
}

nlohmann::json DiagnosticToJson(const Diagnostic& d) {
  // The same text as the terminal gets (JSON would escape control characters itself, but a
  // report that quotes a 100 MB value whole is no more use in JSON than on a terminal).
  nlohmann::json out{{"file", Field(d.location.file)},
                     {"line", d.location.line},
                     {"column", d.location.column},
                     {"severity", SeverityName(d.severity)},
                     {"rule", Field(d.rule)},
                     {"message", Field(d.message)},
                     {"path", Field(d.data_path)},
                     {"fix", Field(d.fix)}};
  for (const SourceLocation& via : d.included_from) {
    out["included_from"].push_back(
        {{"file", Field(via.file)}, {"line", via.line}, {"column", via.column}});
  }
  return out;
}

nlohmann::json DiagnosticsToJson(const DiagnosticSink& sink) {
  nlohmann::json array = nlohmann::json::array();
  for (const Diagnostic& d : sink.diagnostics()) array.push_back(DiagnosticToJson(d));
  return array;
}

}  // namespace hkim

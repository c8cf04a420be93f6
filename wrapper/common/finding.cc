#include "common/finding.h"

#include <map>

// Header-only UTF-8 decoder shared with the generator's diagnostics (no library behind it).
#include "../../generator/support/utf8.h"

namespace hkim::wrapper {

const char* SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kNote:
      return "note";
  }
  return "note";
}

std::string Printable(const std::string& text) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    char32_t code = 0;
    const size_t length = DecodeUtf8(text, i, &code);
    if (length == 0 || code < 0x20 || code == 0x7f) {
      const unsigned char c = static_cast<unsigned char>(text[i]);
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
      ++i;
      continue;
    }
    out.append(text, i, length);
    i += length;
  }
  return out;
}

std::string FormatFinding(const Finding& finding) {
  std::string out = finding.where.empty() ? "hkim-wrapper" : Printable(finding.where);
  out += ": ";
  out += SeverityName(finding.severity);
  out += ": ";
  out += Printable(finding.message);
  out += " [" + Printable(finding.rule) + "]";
  if (!finding.fix.empty()) out += "\n  fix: " + Printable(finding.fix);
  return out;
}

void LimitFindings(Findings* findings, size_t per_rule) {
  std::map<std::string, size_t> seen;  // rule -> findings of it so far
  std::map<std::string, size_t> summary_at;  // rule -> index of its summary in `kept`
  Findings kept;
  for (Finding& finding : *findings) {
    const size_t count = ++seen[finding.rule];
    if (count <= per_rule) {
      kept.push_back(std::move(finding));
      continue;
    }
    auto at = summary_at.find(finding.rule);
    if (at == summary_at.end()) {
      summary_at[finding.rule] = kept.size();
      kept.push_back({finding.severity, "", finding.rule, "", ""});
    } else if (finding.severity < kept[at->second].severity) {
      kept[at->second].severity = finding.severity;  // kError < kWarning < kNote
    }
  }
  for (const auto& [rule, index] : summary_at) {
    const size_t more = seen[rule] - per_rule;
    kept[index].message = std::to_string(more) + " more " + rule + " finding(s) like the " +
                          std::to_string(per_rule) + " above not shown (at most " +
                          std::to_string(per_rule) + " per rule)";
  }
  *findings = std::move(kept);
}

}  // namespace hkim::wrapper

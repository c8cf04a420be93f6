#pragma once

// The one formatter for diagnostics, in two forms: gcc-style text for people and editors, and JSON
// for tools (`--output json`).

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/diagnostics.h"

namespace hkim {

/// Source text of the files diagnostics point into, by path, for printing the offending line.
using SourceTexts = std::map<std::string, std::vector<std::string>>;

/// One diagnostic, gcc-style:
///   profiles/x.yaml:14:18: error: 0 is less than the minimum of 1 [schema.minimum]
///     included from profiles/lab.yaml:1:10 (extends:)     (one per `extends:` on the way)
///     at /rails/2/mtu
///      14 |     mtu: 0
///         |          ^
///     fix: set mtu to at least 1
/// Lines whose data are unknown (no line, no pointer, no fix) are left out. Ends in "\n".
std::string FormatDiagnostic(const Diagnostic& diagnostic, const SourceTexts& sources);

/// "N errors, M warnings" (singular where 1), without a newline.
std::string FormatSummary(int errors, int warnings);

/// Every diagnostic of `sink` (the first 20 of each rule, then one note per rule that counts
/// the rest), then the summary line when there is any diagnostic.
std::string FormatDiagnostics(const DiagnosticSink& sink, const SourceTexts& sources);

/// One diagnostic as a JSON object: {"file", "line", "column", "severity", "rule", "message",
/// "path", "fix"} (line/column 0 when unknown), and "included_from": [{"file", "line",
/// "column"}] when the location is in an `extends:` base.
nlohmann::json DiagnosticToJson(const Diagnostic& diagnostic);

/// Every diagnostic of `sink` as a JSON array, in report order.
nlohmann::json DiagnosticsToJson(const DiagnosticSink& sink);

/// "error", "warning" or "note".
const char* SeverityName(Severity severity);

}  // namespace hkim

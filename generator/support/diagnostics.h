#pragma once

#include <string>
#include <vector>

#include "support/source_location.h"

namespace hkim {

enum class Severity { kError, kWarning, kNote };

/// One finding about the user's input, with everything needed to act on it.
struct Diagnostic {
  Severity severity = Severity::kError;
  SourceLocation location;  ///< where in which file; may be unknown (line 0)
  std::string data_path;    ///< JSON pointer into the profile, e.g. "/rails/2/mtu"
  std::string rule;     ///< stable id: "schema.minimum", "yaml.duplicate-key", "lint.hca-prefix"...
  std::string message;  ///< what is wrong, one sentence
  std::string fix;      ///< what to do about it, one sentence ("did you mean ..." for typos)
  /// Shown as its first line only (an accepted warning: the user has seen it and decided; its
  /// source line and fix are noise on every run). -o json keeps every field.
  bool brief = false;
  /// When `location` is in an `extends:` base: the `extends:` entries that lead to it, from the
  /// one naming that base back to the user's profile (printed as "included from" lines).
  std::vector<SourceLocation> included_from = {};  // "= {}": an aggregate may leave it out
};

/// Collects every diagnostic of a stage; the pipeline stops after a stage that reported errors.
class DiagnosticSink {
 public:
  void Report(Diagnostic diagnostic) { diagnostics_.push_back(std::move(diagnostic)); }
  bool HasErrors() const;
  int ErrorCount() const;
  int WarningCount() const;
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

}  // namespace hkim

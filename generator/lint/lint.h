#pragma once

// Lint stage: cross-object rules over a built Profile, for the faults that are each plausible
// alone and wrong together (a NAD whose resource no pod requests, one IP range on four isolated
// rails, NCCL_IB_HCA="^mlx5_"...). Runs after the model stage; every rule is one entry of a
// table (LintRules()) with a stable id, a severity and a one-line summary; the rules live in
// lint_rules/, one file per group.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "support/diagnostics.h"
#include "load/load.h"
#include "model/model.h"
#include "support/ipv4_network.h"  // Ipv4Network, ParseCidr: the rules' networks

namespace hkim {

/// What a rule sees: the typed profile (defaults applied) and the merged document with the
/// location of every value (`loaded.locations`), for values the model does not keep.
struct LintContext {
  const Profile& profile;
  const LoadedProfile& loaded;
};

/// Collects a rule's findings; fills in the rule id, severity and location.
class LintReporter {
 public:
  LintReporter(const LintContext& context, DiagnosticSink& sink) : context_(context), sink_(sink) {}

  /// One finding at `json_pointer` (located at that value, else its nearest written ancestor:
  /// a default that is wrong is reported where the user could write it). `fix` states what to
  /// change.
  void Report(const std::string& json_pointer, std::string message, std::string fix);

  /// Set by RunLint before each rule runs.
  void BeginRule(const std::string& id, Severity severity) {
    rule_ = id;
    severity_ = severity;
  }

 private:
  const LintContext& context_;
  DiagnosticSink& sink_;
  std::string rule_;
  Severity severity_ = Severity::kError;
};

/// One lint rule.
struct LintRule {
  const char* id;       ///< stable: "lint.subnet-overlap"; never reused for another meaning
  Severity severity;    ///< errors fail validate/lint/render; warnings only with --strict
  const char* summary;  ///< what it checks, one line (for `hkimgen lint --list-rules`)
  void (*check)(const LintContext& context, LintReporter& report);
};

/// Every rule, sorted by id.
const std::vector<LintRule>& LintRules();

/// Reads what RunLint reads whatever the profile (the rule table, the NCCL releases and the
/// names they read), once per process: a set-up thread calls it while the profile is read
/// (pipeline/prepare.h), so that the lint of a small render does not parse them first.
void PrepareLintTables();

/// Runs every rule over `profile`, reporting to `sink`. Each fault is reported once, by one
/// rule, at one location (a fault that involves two values is reported at the later one and
/// names the other). Returns the number of errors reported.
int RunLint(const Profile& profile, const LoadedProfile& loaded, DiagnosticSink& sink);

// --- helpers the rule files share -------------------------------------------------------

/// Splits an NCCL list variable (NCCL_IB_HCA, NCCL_SOCKET_IFNAME) the way NCCL does: a leading
/// '^' (exclude), then a leading '=' (exact), then comma-separated tokens with ":port" removed.
struct NcclNameList {
  bool exclude = false;
  bool exact = false;
  std::vector<std::string> names;

  /// Whether the list's token selects `device` (prefix or exact match, before applying `^`).
  bool Matches(const std::string& device) const;
};
NcclNameList ParseNcclNameList(const std::string& value);

}  // namespace hkim

// Operator releases against the release catalog (model/operator_versions.h): a version the
// catalog does not know pins nothing the bundle can check (no chart images for `hkimgen images`
// and the mirror, no CSV for OLM, no NicClusterPolicy component images), so it is an error unless
// the profile accepts it by naming the reason (operators.<op>.accept_unlisted_version), in which
// case it is a warning that says what is lost. A release must also declare the profile's
// OpenShift minor (its CSV's com.redhat.openshift.versions): OLM does not offer it elsewhere.

#include "lint/rules/rules.h"
#include "model/operator_catalog.h"
#include "model/operator_versions.h"
#include "schema/profile_schema.h"

namespace hkim {
namespace {

// The profile's reason for running a version outside the catalog; "" when it gives none.
std::string UnlistedReason(const LintContext& c, const std::string& key) {
  const nlohmann::json& doc = c.loaded.document;
  const nlohmann::json* op = nullptr;
  if (doc.contains("operators") && doc["operators"].is_object() &&
      doc["operators"].contains(key) && doc["operators"][key].is_object())
    op = &doc["operators"][key];
  if (!op || !op->contains("accept_unlisted_version") ||
      !(*op)["accept_unlisted_version"].is_string())
    return "";
  return (*op)["accept_unlisted_version"].get<std::string>();
}

struct Unlisted {
  std::string key;
  std::string name;
  std::string version;
  std::string pointer;
  std::vector<std::string> known;
  std::string known_text;
  std::string loses;
};

// Every operator with a release line (its definition's), in the catalogue's order.
std::vector<Unlisted> UnlistedVersions(const Profile& p) {
  std::vector<Unlisted> out;
  if (!p.operators) return out;
  // A preinstalled or shared operator is pinned by whoever installs it; the version still names
  // what the cluster should run (the cluster check compares it), so it is checked all the same.
  for (const OperatorFacts& facts : OperatorCatalog()) {
    const ReleaseLine& line = facts.release;
    const OperatorCommon* op = facts.in(*p.operators);
    if (!op || !line.listed || (p.IsOpenShift() && !line.checked_on_openshift)) continue;
    if (line.listed(op->version)) continue;
    out.push_back({facts.key, line.name, op->version, op->pointer + "/version", line.versions(),
                   line.versions_text(),
                   p.IsOpenShift() ? line.loses_openshift : line.loses_kubernetes});
  }
  return out;
}

void CheckOperatorRelease(const LintContext& c, LintReporter& r) {
  for (const Unlisted& u : UnlistedVersions(c.profile)) {
    if (!UnlistedReason(c, u.key).empty()) continue;  // lint.operator-release-unlisted
    const std::string closest = ClosestMatch(u.version, u.known);
    r.Report(u.pointer,
             u.name + " " + u.version + " is not in hkimgen's release catalog: " +
                 u.loses,
             (closest.empty() ? std::string() : "did you mean " + closest + "? ") + "use one of " +
                 u.known_text + " (catalog/releases.json; scripts/release-catalog.py adds new "
                 "releases), or accept it with operators." + u.key +
                 ".accept_unlisted_version: \"<why>\"");
  }
  const Profile& p = c.profile;
  if (!p.IsOpenShift() || !p.operators || !p.operators->gpu_operator ||
      p.operators->openshift_version.empty())
    return;
  const GpuOperator& gpu = *p.operators->gpu_operator;
  const auto release = FindGpuOperatorRelease(gpu.version);
  if (!release) return;
  const auto in_range = OpenShiftInRange(p.operators->openshift_version, release->openshift);
  if (in_range && !*in_range) {
    r.Report(gpu.pointer + "/version",
             "GPU Operator " + gpu.version + " declares OpenShift " + release->openshift +
                 " (its bundle's com.redhat.openshift.versions), not " +
                 p.operators->openshift_version +
                 ": the certified catalog of this cluster does not offer it",
             "pick a release whose range holds " + p.operators->openshift_version +
                 " (docs/release-lines.md lists them), or correct operators.openshift_version");
  }
}

void CheckOperatorReleaseUnlisted(const LintContext& c, LintReporter& r) {
  for (const Unlisted& u : UnlistedVersions(c.profile)) {
    const std::string reason = UnlistedReason(c, u.key);
    if (reason.empty()) continue;
    r.Report(u.pointer,
             u.name + " " + u.version +
                 " is not in hkimgen's release catalog, accepted (\"" + reason + "\"): " + u.loses,
             "add the release to catalog/releases.json (scripts/release-catalog.py) and remove "
             "operators." + u.key + ".accept_unlisted_version");
  }
}

// The catalog's life-cycle table, offline: a bundle that installs a GPU Operator line NVIDIA no
// longer supports. Where the cluster's admins install it (preinstalled, shared) the version only
// describes what runs, and validate --cluster notes it (cluster.end-of-support).
void CheckGpuOperatorSupport(const LintContext& c, LintReporter& r) {
  const Profile& p = c.profile;
  if (!p.operators || !p.operators->gpu_operator || !p.operators->gpu_operator->managed()) return;
  const GpuOperator& gpu = *p.operators->gpu_operator;
  std::string source;
  if (GpuOperatorSupport(gpu.version, &source) != "end-of-support") return;
  const auto newest = NewestSupportedGpuOperatorRelease(
      p.IsOpenShift() && p.operators ? p.operators->openshift_version : "");
  const bool written = c.loaded.locations.values.count(gpu.pointer + "/version") > 0;
  r.Report(gpu.pointer + "/version",
           "the bundle installs GPU Operator " + gpu.version + (written ? "" : " (the default)") +
               ", whose line NVIDIA no longer supports (" + source + ")",
           (newest ? "set operators.gpu_operator.version: " + newest->version +
                         " (the newest supported release), "
                   : std::string("pick a supported release, ")) +
               "moving one major at a time (docs/release-lines.md); or accept it: "
               "accept_warnings: [{rule: lint.gpu-operator-support, reason: ...}]");
}

}  // namespace

std::vector<LintRule> ReleaseLintRules() {
  return {
      {"lint.operator-release", Severity::kError,
       "operator versions are releases of the catalog, and declare the profile's OpenShift "
       "version",
       CheckOperatorRelease},
      {"lint.operator-release-unlisted", Severity::kWarning,
       "a version outside the catalog, accepted with the reason the profile names",
       CheckOperatorReleaseUnlisted},
      {"lint.gpu-operator-support", Severity::kWarning,
       "a GPU Operator the bundle installs is of a line NVIDIA still supports (the catalog's "
       "life-cycle table)",
       CheckGpuOperatorSupport},
  };
}

}  // namespace hkim

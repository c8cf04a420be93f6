// NCCL variable names in nccl.extra_env: NCCL ignores a name it does not read, so a
// typo (NCCL_MAX_NCHANNELSS) or a removed variable (NCCL_LL_THRESHOLD, gone in 2.5.6) renders
// and does nothing. The names NCCL reads are data: the release catalog's NCCL releases
// (catalog/releases.json, model/operator_versions.h; scripts/release-catalog.py says how they
// were extracted). And rails whose MTUs differ.

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "lint/rules/rules.h"
#include "model/operator_versions.h"
#include "schema/profile_schema.h"
#include "support/json_pointer.h"

namespace hkim {

void CheckNcclEnvNames(const LintContext& c, LintReporter& r) {
  const std::vector<std::string>& names = NcclEnvNames();
  if (names.empty()) return;
  for (const auto& [name, value] : c.profile.nccl.extra_env) {
    // `names` is sorted; the releases themselves are read only for a finding's message.
    if (name.rfind("NCCL_", 0) != 0 || std::binary_search(names.begin(), names.end(), name)) continue;
    const std::string releases =
        NcclReleases().front().version + " to " + NcclReleases().back().version;
    const std::string closest = ClosestMatch(name, names);
    r.Report(c.profile.nccl.pointer + "/extra_env/" + EscapeJsonPointerToken(name),
             name + " is not a variable NCCL reads (none of its releases " + releases +
                 " does): NCCL ignores it without a word, so this setting does nothing",
             (closest.empty() ? std::string() : "did you mean " + closest + "? ") +
                 "remove it, or accept this warning (accept_warnings) when a net or tuner "
                 "plugin outside NCCL reads it");
  }
}

void CheckRailMtus(const LintContext& c, LintReporter& r) {
  const std::vector<Rail>& rails = c.profile.network.rails;
  if (rails.size() < 2) return;
  // The MTU most rails have (the first such on a tie) is taken as meant; the others are named.
  std::map<int, int> count;
  for (const Rail& rail : rails) ++count[rail.mtu_bytes];
  if (count.size() < 2) return;
  int common = rails.front().mtu_bytes;
  for (const Rail& rail : rails) {
    if (count[rail.mtu_bytes] > count[common]) common = rail.mtu_bytes;
  }
  for (const Rail& rail : rails) {
    if (rail.mtu_bytes == common) continue;
    r.Report(rail.pointer + "/mtu_bytes",
             "rail " + rail.name + " has MTU " + std::to_string(rail.mtu_bytes) + " while " +
                 std::to_string(count[common]) + " other rail(s) have " + std::to_string(common) +
                 ": NCCL spreads each transfer over every rail, so the slowest rail (smaller "
                 "frames) sets the pace, and a switch port left at the other MTU drops frames",
             "give every rail the MTU its switch ports carry (mtu_bytes: " +
                 std::to_string(common) + " on each, most often), or accept this warning when "
                 "the fabric really differs");
  }
}

}  // namespace hkim

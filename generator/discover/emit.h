#pragma once

// discover, stage 4: the discovered profile as commented YAML (yaml-cpp's emitter, so every
// value is one correctly quoted scalar). Each inferred value is followed by a comment naming the
// object and field it came from; each default the export cannot determine by `# TODO: ...`.

#include <string>
#include <vector>

#include "discover/infer.h"

namespace hkim::discover {

struct EmitOptions {
  std::string cluster_name;  ///< --name; empty: "my-cluster" with a TODO
  /// Appended to the name (and so to gitops.path), one profile per group: "-bm-gpu-h200-8".
  std::string group_suffix;
  /// With one profile per group: the other groups' cluster names, in `other_groups` order.
  std::vector<std::string> other_names;
};

/// The profile text (ends in a newline).
std::string EmitProfile(const DiscoveredProfile& profile, const EmitOptions& options);

/// A string as a YAML scalar that reads back as the same string: double-quoted when plain it
/// would be a number, boolean or null (yaml-cpp quotes `: `, `#` and the like itself).
bool NeedsTypeQuotes(const std::string& value);

}  // namespace hkim::discover

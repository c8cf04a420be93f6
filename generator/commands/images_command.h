#pragma once

// `hkimgen images PROFILE... [-f FILE]... [--set PATH=VALUE]... [--allow RULE]...
// [-o text|json|imageset]`: every image reference the profiles' bundles make the cluster pull
// (images/images.h), for mirroring a disconnected cluster's registry; writes nothing.

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "layering/layering.h"

namespace hkim {

struct ImagesOptions {
  std::vector<std::string> profiles;
  LayerInputs layers;  ///< -f / --set, applied to every profile; profile_path unused
  std::vector<std::string> allow;
  std::string format = "text";  ///< text | json | imageset
};

/// Adds the `images` sub-command to `app`.
void SetupImagesCommand(CLI::App& app);

/// Renders every profile (nothing is written) and prints what its bundle pulls: `text` one image
/// per line (sorted, without duplicates) then `#` lines naming the OLM packages and Helm charts;
/// `json` the JSON report with each image's origins; `imageset` an oc-mirror
/// ImageSetConfiguration. Returns 0, 1 (invalid profile) or 2 (I/O, internal).
int RunImagesCommand(const ImagesOptions& options, std::ostream& out, std::ostream& err);

}  // namespace hkim

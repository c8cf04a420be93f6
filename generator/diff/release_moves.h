#pragma once

// `hkimgen diff` between two releases of an operator: what moves when the bundle in the folder
// pins one GPU or Network Operator release and the profile another. Read from the two bundles
// (the Application's chart revision, the Subscription's startingCSV) and answered by the release
// catalog (model/operator_versions.h): images that change, CRDs that change, whether the GPU
// driver rolls on every GPU node, and minors skipped where NVIDIA supports one step at a time.
// Refusing a downgrade OLM cannot do is not here.

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "render/render.h"
#include "support/diagnostics.h"

namespace hkim {

/// One operator whose pinned release differs between the folder and the profile.
struct ReleaseMove {
  std::string operator_name;  ///< "GPU Operator", "Network Operator"
  std::string file_name;      ///< the object that pins it in the new bundle
  std::string from, to;       ///< "v25.10.1"; `from` may be a channel ("v25.10") in old bundles
  bool from_known = false;    ///< `from` is a release of the catalog
  bool to_known = false;
  /// "component: old -> new" (a changed tag), "+component new", "-component old".
  std::vector<std::string> images;
  std::vector<std::string> crds;  ///< "~file", "+file", "-file"
  bool driver_deployed = false;   ///< the bundle deploys the GPU driver (driver.enabled)
  std::string driver_from, driver_to;
  std::vector<std::string> skipped;  ///< minors between from and to that are skipped ("v26.3")

  /// The GPU driver changes on a bundle that deploys it: every GPU node's driver pod restarts
  /// (and reloads the kernel module, draining per the ClusterPolicy's upgrade policy).
  bool DriverRolls() const { return driver_deployed && driver_from != driver_to; }
};

/// The moves between the bundle in the folder (`existing`: file -> content) and `wanted`.
std::vector<ReleaseMove> ReleaseMoves(const RenderedBundle& wanted,
                                      const std::map<std::string, std::string>& existing);

/// diff.skipped-minor: a warning per move that skips a GPU Operator minor (NVIDIA supports an
/// upgrade within a minor or to the next one only: life-cycle-policy.rst), located at the
/// new bundle's file.
void ReportSkippedMinors(const std::vector<ReleaseMove>& moves, DiagnosticSink& sink);

/// Text for the end of the diff ("" when there are no moves), and the same as JSON (an array).
std::string FormatReleaseMoves(const std::vector<ReleaseMove>& moves);
nlohmann::json ReleaseMovesToJson(const std::vector<ReleaseMove>& moves);

}  // namespace hkim

// Plan stage of `hkimgen diff` over a fleet (fleet/fleet_diff.h).

#include "fleet/fleet_diff.h"

#include <filesystem>
#include <sstream>

#include "support/input_file.h"
#include "fleet/plan_fleet.h"
#include "fleet/write_fleet.h"

namespace hkim {

namespace fs = std::filesystem;

bool FleetDiff::HasChanges() const {
  if (!removed_clusters.empty()) return true;
  for (const FleetFolderDiff& folder : folders) {
    if (folder.diff.HasChanges()) return true;
  }
  return false;
}

std::optional<FleetDiff> DiffFleet(const RenderedFleet& fleet, const std::string& dir,
                                   DiagnosticSink& sink) {
  FleetDiff result;
  auto compare = [&](const std::string& name, const std::string& profile,
                     const RenderedBundle& bundle) {
    FleetFolderDiff folder;
    folder.folder = (fs::path(dir) / name).string();
    folder.profile_path = profile;
    std::error_code ec;
    folder.exists = fs::exists(folder.folder, ec);
    std::optional<std::map<std::string, std::string>> existing =
        ReadBundleDirectory(folder.folder, sink);
    if (!existing) return false;
    folder.diff = DiffBundle(bundle, *existing, ReadBundleMarkerFiles(folder.folder));
    result.folders.push_back(std::move(folder));
    return true;
  };
  bool ok = true;
  for (const FleetMember& member : fleet.members) {
    ok = compare(member.render.profile.cluster_name, member.profile_path, member.render.bundle) &&
         ok;
  }
  ok = compare(kFleetFolder, "", fleet.fleet) && ok;
  if (!ok) return std::nullopt;
  result.removed_clusters = RemovedClusterFolders(fleet, dir);
  return result;
}

namespace {

struct FleetCounts {
  size_t fresh = 0, changed = 0, unchanged = 0;
};

FleetCounts Count(const FleetDiff& diff) {
  FleetCounts counts;
  for (const FleetFolderDiff& folder : diff.folders) {
    if (!folder.exists) {
      ++counts.fresh;
    } else if (folder.diff.HasChanges()) {
      ++counts.changed;
    } else {
      ++counts.unchanged;
    }
  }
  return counts;
}

}  // namespace

std::string FormatFleetDiff(const FleetDiff& diff, const std::string& dir) {
  std::ostringstream out;
  for (const FleetFolderDiff& folder : diff.folders) {
    if (!folder.diff.HasChanges()) {  // one line: "DIR/<cluster>: no changes"
      out << FormatBundleDiff(folder.diff, folder.folder);
      continue;
    }
    out << "\n== " << folder.folder;
    if (!folder.profile_path.empty()) out << " (" << InputLabel(folder.profile_path) << ")";
    if (!folder.exists) out << ": new folder";
    out << "\n" << FormatBundleDiff(folder.diff, folder.folder);
  }
  if (!diff.removed_clusters.empty()) out << "\n";
  for (const std::string& removed : diff.removed_clusters) {
    out << "! " << removed << ": bundle of a cluster no longer in the fleet, left in place "
        << "(fleet.removed-cluster)\n";
  }
  const FleetCounts counts = Count(diff);
  out << "\n"
      << dir << ": " << diff.folders.size() << " folders: " << counts.fresh << " new, "
      << counts.changed << " to change, " << counts.unchanged << " unchanged";
  if (!diff.removed_clusters.empty()) {
    out << "; " << diff.removed_clusters.size()
        << " bundle(s) of removed clusters to delete yourself";
  }
  out << "\n";
  return out.str();
}

nlohmann::json FleetDiffToJson(const FleetDiff& diff, const std::string& dir) {
  nlohmann::json folders = nlohmann::json::array();
  for (const FleetFolderDiff& folder : diff.folders) {
    nlohmann::json entry = BundleDiffToJson(folder.diff, folder.folder);
    entry["profile"] = folder.profile_path.empty()
                           ? nlohmann::json(nullptr)
                           : nlohmann::json(InputLabel(folder.profile_path));
    entry["exists"] = folder.exists;
    folders.push_back(std::move(entry));
  }
  const FleetCounts counts = Count(diff);
  return {{"directory", dir},
          {"folders", folders},
          {"removed_clusters", diff.removed_clusters},
          {"summary",
           {{"folders", diff.folders.size()},
            {"new", counts.fresh},
            {"changed", counts.changed},
            {"unchanged", counts.unchanged},
            {"removed_clusters", diff.removed_clusters.size()}}}};
}

}  // namespace hkim

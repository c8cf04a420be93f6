#pragma once

// A profile for a fresh OpenShift cluster, as `hkimgen init --platform openshift` writes it: the
// bundle installs the operators and renders the node objects (IOMMU MachineConfig, SR-IOV node
// policies, the RDMA pool config, the ClusterPolicy) that the shipped Barcelona profile, which
// describes a cluster that has them already, does not. For the tests of what those objects'
// changes do (issue 36).

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "commands/init_command.h"

namespace hkim::test_files {

/// Writes the starter profile of cluster `lab` (shape barcelona-h100-cx7) once per process and
/// returns its path; the file is removed when the process ends.
inline std::string FreshOpenShiftProfilePath() {
  struct File {
    std::filesystem::path path;
    File() {
      InitOptions options;
      options.platform = "openshift";
      options.shape = "barcelona-h100-cx7";
      options.name = "lab";
      options.repo_url = "https://github.com/lab/bundles.git";
      path = std::filesystem::temp_directory_path() /
             ("hkim-fresh-openshift-" + std::to_string(getpid()) + ".yaml");
      std::ofstream(path) << StarterProfile(options).value_or("");
    }
    ~File() {
      std::error_code ec;
      std::filesystem::remove(path, ec);
    }
  };
  static const File file;
  return file.path.string();
}

}  // namespace hkim::test_files

#pragma once

// Publishes the wrapper's decisions as NCCL's own configuration file, so that processes started
// outside the wrapper (`kubectl exec ... torchrun`, mpirun over ssh) get the same NCCL settings.
// NCCL reads NAME=VALUE lines with setenv(name, value, 0): a variable already in a process's
// environment always wins. NCCL 2.23 and newer read the file named by NCCL_CONF_FILE; older
// releases read ~/.nccl.conf of the passwd entry (getpwuid, not $HOME); both also read
// /etc/nccl.conf.

#include <map>
#include <string>

#include "common/finding.h"

namespace hkim::wrapper {

/// The file text: a comment (without '=', which NCCL would read as a variable), then one
/// NAME=VALUE line per variable, sorted.
std::string FormatNcclConf(const std::map<std::string, std::string>& vars);

/// Where to publish and what.
struct NcclConfRequest {
  std::string conf_file;  ///< NCCL_CONF_FILE of the pod ("" = publish nothing)
  std::string home_dir;   ///< passwd home of this user ("" = unknown: no ~/.nccl.conf link)
  std::map<std::string, std::string> vars;  ///< the decided variables the environment lacks
};

/// Writes `conf_file` when nothing exists there yet (never replaces a file: one that exists is
/// left alone and reported), and links `home_dir`/.nccl.conf to it when that is absent (for NCCL
/// before 2.23). Returns what happened as findings (notes; warnings when it could not write).
Findings PublishNcclConf(const NcclConfRequest& request);

/// The passwd home folder of this process's user (what NCCL before 2.23 reads ~ as); "" when
/// there is no entry.
std::string PasswdHomeDir();

}  // namespace hkim::wrapper

// Model part, security: memlock strategy, service account, SCC.

#include "model/reader.h"

namespace hkim {

void ModelBuilder::ReadSecurity(const json& security, Security& out) {
  const std::string strategy = String(security, "memlock_strategy", "sys-resource-scc");
  out.memlock_strategy = strategy == "privileged"     ? MemlockStrategy::kPrivileged
                         : strategy == "crio-ulimits" ? MemlockStrategy::kCrioUlimits
                                                      : MemlockStrategy::kSysResourceScc;
  out.service_account = String(security, "service_account", out.service_account);
  out.scc_name = String(security, "scc_name");
  if (const json* uid = Child(security, "run_as_user"); uid && uid->is_number_integer())
    out.run_as_user = uid->get<int64_t>();
  out.host_ipc = Boolean(security, "host_ipc", false);
}

}  // namespace hkim

// Model part, NCCL settings the bundle puts in the pod environment.

#include "model/reader.h"

namespace hkim {

void ModelBuilder::ReadNccl(const json& nccl, NcclSettings& out) {
  out.gid_policy =
      String(nccl, "gid_policy", "auto") == "index" ? GidPolicy::kIndex : GidPolicy::kAuto;
  if (const json* index = Child(nccl, "gid_index"); index && index->is_number_integer())
    out.gid_index = index->get<int>();
  out.ib_tc = static_cast<int>(Integer(nccl, "ib_tc", 0));
  out.ib_sl = static_cast<int>(Integer(nccl, "ib_sl", 0));
  out.ib_timeout = static_cast<int>(Integer(nccl, "ib_timeout", 20));
  out.ib_retry_count = static_cast<int>(Integer(nccl, "ib_retry_count", 7));
  out.ib_qps_per_connection = static_cast<int>(Integer(nccl, "ib_qps_per_connection", 1));
  out.ib_split_data_on_qps = Boolean(nccl, "ib_split_data_on_qps", false);
  out.cross_nic = static_cast<int>(Integer(nccl, "cross_nic", 2));
  if (const json* level = Child(nccl, "gdr_level")) out.gdr_level = ScalarText(*level);
  const std::string gpudirect = String(nccl, "gpudirect", "auto");
  out.gpudirect = gpudirect == "dmabuf"           ? GpuDirect::kDmaBuf
                  : gpudirect == "nvidia-peermem" ? GpuDirect::kNvidiaPeermem
                                                  : GpuDirect::kAuto;
  if (const json* n = Child(nccl, "socket_nthreads"); n && n->is_number_integer())
    out.socket_nthreads = n->get<int>();
  out.socket_ifname = String(nccl, "socket_ifname");
  out.ib_hca = Strings(nccl, "ib_hca");
  out.debug = String(nccl, "debug");
  out.extra_env = StringMap(nccl, "extra_env");
}

}  // namespace hkim

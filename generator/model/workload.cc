// Model part, workload and its in-pod health check.

#include "model/reader.h"

namespace hkim {

void ModelBuilder::ReadWorkload(const json& w, Workload& out) {
  out.name = String(w, "name");
  out.image = String(w, "image");
  out.replicas = static_cast<int>(Integer(w, "replicas", 1));
  out.gpus_per_pod = static_cast<int>(Integer(w, "gpus_per_pod", 1));
  out.command = Strings(w, "command");
  if (const json* shm = Child(w, "shm_size")) out.shm_size = ScalarText(*shm);
  if (auto bytes = ParseByteSize(out.shm_size)) {
    out.shm_size_bytes = *bytes;
  } else {
    Error("/workload/shm_size", "model.byte-size", "'" + out.shm_size + "' is not a byte size",
          "write an integer with an optional unit, e.g. 32Gi");
  }
  out.mode = String(w, "mode", "rdma") == "tcp" ? WorkloadMode::kTcp : WorkloadMode::kRdma;
  out.on_no_rdma = String(w, "on_no_rdma", "fail") == "tcp" ? OnNoRdma::kTcp : OnNoRdma::kFail;
  out.master_port = static_cast<int>(Integer(w, "master_port", 29500));
  out.service_name = String(w, "service_name", out.name + "-headless");
  if (const json* resources = Child(w, "resources")) {
    out.resource_requests = StringMap(*resources, "requests");
    out.resource_limits = StringMap(*resources, "limits");
  }
  out.env = StringMap(w, "env");
  out.termination_grace_period_seconds =
      static_cast<int>(Integer(w, "termination_grace_period_seconds", 30));
}

void ModelBuilder::ReadHealthCheck(const json& check, HealthCheck& out) {
  const std::string mode = String(check, "mode", "warn");
  out.mode = mode == "off"    ? HealthCheckMode::kOff
             : mode == "fail" ? HealthCheckMode::kFail
                              : HealthCheckMode::kWarn;
  out.scope =
      String(check, "scope", "local") == "job" ? HealthCheckScope::kJob : HealthCheckScope::kLocal;
  if (const json* bw = Child(check, "min_busbw_gbps"); bw && bw->is_number())
    out.min_busbw_gbps = bw->get<double>();
  for (auto [key, target] :
       {std::pair{"at_bytes", &out.at_bytes}, std::pair{"max_bytes", &out.max_bytes}}) {
    const json* value = Child(check, key);
    if (!value) continue;
    const std::string text = ScalarText(*value);
    if (auto bytes = ParseByteSize(text)) {
      *target = *bytes;
    } else {
      Error(std::string("/health_check/") + key, "model.byte-size",
            "'" + text + "' is not a byte size",
            "write an integer with an optional unit, e.g. 1Gi");
    }
  }
  out.transport = String(check, "transport", "any");
}

}  // namespace hkim

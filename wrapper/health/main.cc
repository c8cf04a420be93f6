// hkim-health: the fabric health check of one node, run by the bundle's sync gate (gate mode)
// and the periodic check's pods (node mode); and the periodic check's coordinator (night mode:
// starts the check pods on tonight's idle nodes and marks the nodes through the Kubernetes API).
// The checks start as `hkim-wrapper -- hkim-health node|gate` so the RDMA environment is the
// workload's; the coordinator runs alone, with no GPU.

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>

#include "health_config.h"
#include "health_pipeline.h"
#include "kube_api.h"
#include "night.h"

namespace {

std::optional<std::string> GetEnv(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

std::string OwnFolder() {
  char buffer[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buffer, sizeof buffer - 1);
  if (n <= 0) return ".";
  std::string path(buffer, static_cast<size_t>(n));
  return path.substr(0, path.rfind('/'));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace hkim::health;
  HealthConfig config;
  std::vector<std::string> errors;
  ReadHealthEnvironment(GetEnv, config, errors);
  config.bin_dir = OwnFolder();

  CLI::App app{"hkim-health: fabric health of this node (inventory, diagnosis, NCCL, per rail); "
               "node mode marks the Node hkimgen.io/nccl-health=pass|fail"};
  std::string mode, sa_dir = kServiceAccountDir;
  double api_timeout_s = 20;
  app.add_option("mode", mode, "node | gate | night (default: HKIM_HEALTH_MODE or node)");
  app.add_option("--bin-dir", config.bin_dir, "folder of hkim-wrapper and hkim-nccl-check");
  app.add_option("--service-account-dir", sa_dir, "token and ca.crt of the API client");
  app.add_option("--api-timeout-s", api_timeout_s, "deadline of one API request");
  CLI11_PARSE(app, argc, argv);
  if (mode == "gate") config.mode = RunMode::kGate;
  else if (mode == "node") config.mode = RunMode::kNode;
  else if (mode == "night") config.mode = RunMode::kNight;
  else if (!mode.empty()) errors.push_back("mode '" + mode + "' is unknown\nfix: use node, gate or night");
  if (config.mode == RunMode::kNode && config.node_name.empty())
    errors.push_back("HKIM_NODE_NAME is not set\nfix: set it from the downward API "
                     "(fieldRef spec.nodeName)");
  if (!errors.empty()) {
    for (const std::string& error : errors) std::cerr << "hkim-health: error: " << error << "\n";
    return 2;
  }
  if (config.mode == RunMode::kGate) return RunGateMode(config, std::cout, std::cerr);
  // A night check pod reports to its coordinator and has no token to call the API with.
  if (config.mode == RunMode::kNode && config.report_to_termination)
    return RunNodeMode(config, std::nullopt, std::cout, std::cerr);

  std::optional<KubeClient> api;
  ApiEndpoint endpoint;
  std::string error;
  if (InClusterEndpoint(GetEnv, sa_dir, &endpoint, &error)) {
    api.emplace(endpoint, api_timeout_s);
  } else {
    std::cerr << "hkim-health: error: no Kubernetes API: " << error << "\n";
  }
  if (config.mode == RunMode::kNight) return RunNightMode(config, api, std::cout, std::cerr);
  return RunNodeMode(config, api, std::cout, std::cerr);
}

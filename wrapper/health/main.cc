// hkim-health: the fabric health check of one node, run by the workload's own pods before the
// training command (pod mode), by the periodic check's pods (node mode), and the periodic
// check's coordinator (night mode: starts the check pods on tonight's idle nodes and marks the
// nodes through the Kubernetes API; it runs alone, with no GPU). The checks start as
// `hkim-wrapper -- hkim-health node|pod -- <command...>` so the RDMA environment is the
// workload's; `hkim-health ready` is the StatefulSet's readiness probe; gate mode is the
// in-pod check without the command, for runs by hand; links mode is the passive link agent
// (a DaemonSet: reads the rails' port state and counters, sets the RdmaFabric node condition).

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>

#include "health_config.h"
#include "health_pipeline.h"
#include "kube_api.h"
#include "links_mode.h"
#include "night.h"
#include "pod_mode.h"

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

int Run(int argc, char** argv) {
  using namespace hkim::health;
  // Everything after "--" is pod mode's command, passed to execvp untouched.
  std::vector<std::string> command;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--") != 0) continue;
    for (int j = i + 1; j < argc; ++j) command.emplace_back(argv[j]);
    argc = i;
    break;
  }
  HealthConfig config;
  std::vector<std::string> errors;
  ReadHealthEnvironment(GetEnv, config, errors);
  config.bin_dir = OwnFolder();

  CLI::App app{
      "hkim-health: fabric health of this node (inventory, diagnosis, NCCL, per rail); "
      "node mode marks the Node hkimgen.io/nccl-health=pass|fail; pod mode checks the "
      "workload's pod set, then execs the command after --; ready exits 0 once pod "
      "mode passed (HKIM_HEALTH_READY_FILE exists); links watches the rails' port state and "
      "error counters and sets the node condition RdmaFabric"};
  std::string mode, sa_dir = kServiceAccountDir;
  double api_timeout_s = 20;
  bool once = false;
  app.add_option("mode", mode,
                 "node | gate | night | links | pod -- COMMAND... | ready (default: "
                 "HKIM_HEALTH_MODE or node)");
  app.add_flag("--once", once,
               "links: one pass, print the issues and exit (1 when any, 2 when no device); it "
               "only reads and prints, it never writes the condition (node-problem-detector's "
               "custom plugin mode runs it so)");
  app.add_option("--bin-dir", config.bin_dir, "folder of hkim-wrapper and hkim-nccl-check");
  app.add_option("--service-account-dir", sa_dir, "token and ca.crt of the API client");
  app.add_option("--api-timeout-s", api_timeout_s, "deadline of one API request");
  CLI11_PARSE(app, argc, argv);
  if (mode == "ready") {  // the readiness probe reads one file: no other setting matters
    std::string why;
    if (FabricReady(config, &why)) return 0;
    std::cout << why << "\n";
    return 1;
  }
  if (mode == "gate")
    config.mode = RunMode::kGate;
  else if (mode == "node")
    config.mode = RunMode::kNode;
  else if (mode == "pod")
    config.mode = RunMode::kPod;
  else if (mode == "night")
    config.mode = RunMode::kNight;
  else if (mode == "links")
    config.mode = RunMode::kLinks;
  else if (!mode.empty())
    errors.push_back("mode '" + mode +
                     "' is unknown\nfix: use node, gate, night, links, pod or ready");
  if (once && config.mode != RunMode::kLinks)
    errors.push_back("--once is for links mode\nfix: hkim-health links --once");
  if (config.mode == RunMode::kPod && command.empty())
    errors.push_back(
        "pod mode has no command\nfix: give it after --: hkim-health pod -- "
        "python train.py");
  if (config.mode != RunMode::kPod && !command.empty())
    errors.push_back("only pod mode runs a command after --\nfix: use hkim-health pod -- ...");
  if (config.mode == RunMode::kNode && config.node_name.empty())
    errors.push_back(
        "HKIM_NODE_NAME is not set\nfix: set it from the downward API "
        "(fieldRef spec.nodeName)");
  if (!errors.empty()) {
    for (const std::string& error : errors) std::cerr << "hkim-health: error: " << error << "\n";
    return 2;
  }
  if (config.mode == RunMode::kGate) return RunGateMode(config, std::cout, std::cerr);
  if (config.mode == RunMode::kPod) {
    const PodOutcome outcome = RunPodMode(config, std::cout, std::cerr);
    if (!outcome.exec) return outcome.exit_status;
    std::cout << std::flush;
    std::cerr << std::flush;
    std::vector<char*> args;
    for (std::string& arg : command) args.push_back(arg.data());
    args.push_back(nullptr);
    ::execvp(args[0], args.data());  // keeps the environment
    std::cerr << "hkim-health: error: cannot run " << command[0] << ": " << std::strerror(errno)
              << "\nfix: give the training command's path (or a name on PATH) after --\n";
    return 127;
  }
  // A night check pod reports to its coordinator and has no token to call the API with.
  if (config.mode == RunMode::kNode && config.report_to_termination)
    return RunNodeMode(config, std::nullopt, std::cout, std::cerr);

  std::optional<KubeClient> api;
  ApiEndpoint endpoint;
  std::string error;
  if (InClusterEndpoint(GetEnv, sa_dir, &endpoint, &error)) {
    api.emplace(endpoint, api_timeout_s);
  } else if (!(config.mode == RunMode::kLinks && once)) {
    std::cerr << "hkim-health: error: no Kubernetes API: " << error << "\n";
  }
  if (config.mode == RunMode::kLinks)
    return RunLinksMode(config, once ? std::nullopt : api, once, std::cout, std::cerr);
  if (config.mode == RunMode::kNight) return RunNightMode(config, api, std::cout, std::cerr);
  return RunNodeMode(config, api, std::cout, std::cerr);
}

}  // namespace

int main(int argc, char** argv) {
  // No input may abort the program (a node would stay unmarked, a pod would die without its
  // summary): anything a library throws ends the run with a message and exit 2.
  try {
    return Run(argc, argv);
  } catch (const std::exception& error) {
    std::cerr << "hkim-health: error: internal: " << error.what()
              << "\nfix: report this with the pod's log\n";
    return 2;
  }
}

#include "per_rail_run.h"

#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "common/read_file.h"
#include "common/sysfs_read.h"
#include "nccl_check.h"
#include "report.h"

extern char** environ;

namespace hkim::nccl_check {
namespace {

// A sysfs attribute, bounded and never blocking (common/sysfs_read.h); "" when it cannot be read.
std::string ReadText(const std::string& path) {
  std::string value;
  return wrapper::ReadAttribute(path, &value) ? value : "";
}

// The entries of a sysfs folder, sorted, without hidden ones.
std::vector<std::string> List(const std::string& dir) {
  std::vector<std::string> names = wrapper::ListDirectory(dir);
  std::erase_if(names, [](const std::string& name) { return name.empty() || name[0] == '.'; });
  std::sort(names.begin(), names.end());
  return names;
}

// The GID NCCL will use on port 1: NCCL_IB_GID_INDEX's, else the RoCE v2 IPv4-mapped one (what
// the wrapper and NCCL >= 2.21 pick), else index 0 (InfiniBand).
std::string RailGid(const std::string& port_dir, const std::optional<std::string>& index) {
  if (index && !index->empty()) return ReadText(port_dir + "/gids/" + *index);
  for (const std::string& i : List(port_dir + "/gids")) {
    const std::string gid = ReadText(port_dir + "/gids/" + i);
    if (ReadText(port_dir + "/gid_attrs/types/" + i) == "RoCE v2" &&
        gid.rfind("0000:0000:0000:0000:0000:ffff:", 0) == 0)
      return gid;
  }
  return ReadText(port_dir + "/gids/0");
}

// Runs `self` with `args` and `overrides` on top of our environment; its record goes to a
// temporary file. Returns the RailRun.
RailRun RunChild(const PerRailSetup& setup, const std::string& hca,
                 const std::map<std::string, std::string>& overrides) {
  char path[] = "/tmp/hkim-per-rail.XXXXXX";
  const int fd = ::mkstemp(path);
  if (fd >= 0) ::close(fd);
  std::vector<std::string> args = {setup.self};
  args.insert(args.end(), setup.child_args.begin(), setup.child_args.end());
  args.push_back("--json");
  args.push_back(path);
  std::map<std::string, std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    const size_t eq = entry.find('=');
    env[entry.substr(0, eq)] = eq == std::string::npos ? "" : entry.substr(eq + 1);
  }
  for (const auto& [name, value] : overrides) env[name] = value;
  std::vector<std::string> env_text;
  for (const auto& [name, value] : env) env_text.push_back(name + "=" + value);
  std::vector<char*> argv, envp;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (std::string& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  int status = -1;
  if (::posix_spawn(&pid, setup.self.c_str(), nullptr, nullptr, argv.data(), envp.data()) == 0) {
    int raw = 0;
    while (::waitpid(pid, &raw, 0) < 0 && errno == EINTR) {
    }
    status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  }
  RailRun run = ReadRunRecord(hca, status, wrapper::ReadWholeFile(path).value_or(""));
  ::unlink(path);
  return run;
}

}  // namespace

PerRailPolicy ReadPerRailPolicy(const EnvLookup& env, std::vector<ConfigError>& errors) {
  PerRailPolicy policy;
  if (const auto text = env("HKIM_NCCL_CHECK_MIN_RAIL_FRACTION"); text && !text->empty()) {
    char* end = nullptr;
    const double value = std::strtod(text->c_str(), &end);
    if (end && *end == '\0' && value > 0 && value <= 1) policy.min_fraction = value;
    else errors.push_back({"HKIM_NCCL_CHECK_MIN_RAIL_FRACTION",
                           "HKIM_NCCL_CHECK_MIN_RAIL_FRACTION='" + *text + "' is not in (0, 1]",
                           "give a fraction of the best rail's bandwidth, e.g. 0.75"});
  }
  if (const auto text = env("HKIM_NCCL_CHECK_EXPECT_RAILS"); text && !text->empty()) {
    char* end = nullptr;
    const long value = std::strtol(text->c_str(), &end, 10);
    if (end && *end == '\0' && value >= 0 && value <= 1024) policy.expected_rails = static_cast<int>(value);
    else errors.push_back({"HKIM_NCCL_CHECK_EXPECT_RAILS",
                           "HKIM_NCCL_CHECK_EXPECT_RAILS='" + *text + "' is not a device count",
                           "give the RDMA devices one pod gets, e.g. 4"});
  }
  policy.require_net_ib = env("HKIM_MODE").value_or("") != "tcp";
  policy.node = env("HKIM_NODE_NAME").value_or("");
  if (policy.node.empty()) {
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) == 0) policy.node = host;
  }
  return policy;
}

std::vector<Rail> FindRails(const EnvLookup& env, const std::string& sysfs_root,
                            std::string* error) {
  std::vector<std::string> names;
  const std::string hca = env("NCCL_IB_HCA").value_or("");
  if (!hca.empty()) {
    auto parsed = RailsFromHcaList(hca, error);
    if (!parsed) return {};
    names = *parsed;
  } else {
    names = List(sysfs_root + "/class/infiniband");
    if (names.empty()) {
      *error = "no RDMA device: NCCL_IB_HCA is unset and " + sysfs_root +
               "/class/infiniband is empty";
      return {};
    }
  }
  std::vector<Rail> rails;
  for (const std::string& name : names) {
    const std::string device = name.substr(0, name.find(':'));
    const std::string port = name.find(':') == std::string::npos ? "1" : name.substr(name.find(':') + 1);
    const std::string dir = sysfs_root + "/class/infiniband/" + device;
    const std::vector<std::string> netdevs = List(dir + "/device/net");
    rails.push_back({name, netdevs.empty() ? "" : netdevs.front(),
                     RailGid(dir + "/ports/" + port, env("NCCL_IB_GID_INDEX"))});
  }
  return rails;
}

int RunPerRail(const PerRailSetup& setup, const CheckConfig& config, const EnvLookup& env,
               const std::string& json_path) {
  std::vector<ConfigError> errors;
  const PerRailPolicy policy = ReadPerRailPolicy(env, errors);
  for (const ConfigError& e : errors) std::cerr << FormatConfigError(e);
  if (!errors.empty()) return 2;
  std::string error;
  const std::vector<Rail> rails = FindRails(env, setup.sysfs_root, &error);
  if (rails.empty()) {
    std::cerr << "hkim-nccl-check: error: per-rail on node " << policy.node << ": " << error
              << "\nfix: run it under hkim-wrapper (it sets NCCL_IB_HCA to the pod's devices), "
                 "or check the pod's RDMA resources\n";
    return 1;
  }
  const bool local = config.scope == Scope::kLocal;
  std::map<std::string, std::string> common;
  if (local) {
    // The node's GPUs talk through the NIC (NET loopback) instead of NVLink or shared memory.
    common["NCCL_P2P_DISABLE"] = "1";
    common["NCCL_SHM_DISABLE"] = "1";
  }
  std::vector<RailRun> runs;
  for (size_t i = 0; i < rails.size(); ++i) {
    std::map<std::string, std::string> env_of_run = common;
    env_of_run["NCCL_IB_HCA"] = "=" + rails[i].device;
    env_of_run["HKIM_RENDEZVOUS_PORT"] = std::to_string(config.rendezvous_port + 1 + static_cast<int>(i));
    // A rail alone is judged against the others here, not against the job's minimum.
    env_of_run["HKIM_NCCL_CHECK_MIN_BUSBW_GBPS"] = "0";
    env_of_run["HKIM_NCCL_CHECK_TRANSPORT"] = "any";
    std::cerr << "hkim-nccl-check: per-rail: round " << i + 1 << "/" << rails.size() + 1 << ": "
              << rails[i].device << " alone\n" << std::flush;
    runs.push_back(RunChild(setup, env_of_run["NCCL_IB_HCA"], env_of_run));
  }
  std::string all = "=";
  for (size_t i = 0; i < rails.size(); ++i) all += (i ? "," : "") + rails[i].device;
  std::map<std::string, std::string> together_env = common;
  together_env["NCCL_IB_HCA"] = all;
  together_env["HKIM_RENDEZVOUS_PORT"] = std::to_string(config.rendezvous_port);
  std::cerr << "hkim-nccl-check: per-rail: round " << rails.size() + 1 << "/" << rails.size() + 1
            << ": all rails together\n" << std::flush;
  const RailRun together = RunChild(setup, all, together_env);

  // A round whose rendezvous failed measured nothing: the whole run could not take part (a
  // distinct exit status), rather than a rail "down" that would count against the fabric.
  std::string no_rendezvous;
  for (const RailRun& run : runs)
    if (run.exit_status == kExitRendezvous && no_rendezvous.empty()) no_rendezvous = run.hca;
  if (together.exit_status == kExitRendezvous && no_rendezvous.empty()) no_rendezvous = all;
  if (!no_rendezvous.empty()) {
    const std::string error = "per-rail round NCCL_IB_HCA=" + no_rendezvous +
                              ": the rendezvous failed (its message is above)";
    std::cerr << "hkim-nccl-check: error: " << error << "\n";
    const std::string text = NoRendezvousJson(
        config, error, "choose a free HKIM_RENDEZVOUS_PORT (and the next one per rail)");
    if (json_path == "-") std::cout << text << std::flush;
    else if (!json_path.empty()) std::ofstream(json_path) << text;
    return kExitRendezvous;
  }
  const PerRailResult result = DecidePerRail(rails, runs, together, policy);
  std::cerr << FormatPerRailTable(result, policy) << std::flush;
  if (!json_path.empty()) {
    // Rail and interface names come from NCCL_IB_HCA and sysfs: any byte (see FormatJson).
    const std::string text =
        PerRailJson(result, policy).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
        "\n";
    if (json_path == "-") {
      std::cout << text << std::flush;
    } else {
      std::ofstream out(json_path);
      out << text;
    }
  }
  return result.passed ? 0 : 1;
}

}  // namespace hkim::nccl_check

#include "pipeline.h"

#include <fstream>
#include <map>

#include "decide.h"
#include "detect.h"
#include "environment_scan.h"
#include "exec.h"
#include "health_check.h"
#include "install.h"
#include "memlock.h"
#include "nccl_conf.h"
#include "report.h"
#include "sysfs_probe.h"
#include "verbs_probe.h"

namespace hkim::wrapper {
namespace {

// --install-to DIR (the init container): copy this program and the hkim-* beside it.
int RunInstall(const RunContext& context) {
  const Options& options = context.options;
  std::ostream& err = *context.err;
  std::vector<std::string> installed;
  std::string error;
  int rc = InstallTo(context.self_path, options.install_to, &installed, &error);
  if (rc != 0) {
    err << "hkim-wrapper: error: --install-to " << options.install_to << ": " << error << "\n";
    return rc;
  }
  for (const std::string& name : installed)
    err << "hkim-wrapper: installed " << options.install_to << "/" << name << "\n";
  return 0;
}

// The value of `name` in the pod's environment, "" when unset.
std::string Var(const EnvironmentScan& scan, const std::string& name) {
  auto it = scan.vars.find(name);
  return it == scan.vars.end() ? std::string() : it->second;
}

// What the node offers this pod (RDMA mode): its devices, libibverbs' view of them (on this
// machine's /sys only), the locked-memory limit raised, nvidia_peermem, the network interfaces.
// `input` points at `detection`, `verbs` and `memlock`, which the caller keeps.
void ProbeNode(const EnvironmentScan& scan, const std::string& mode, const SysfsProbe& sysfs,
               DecideInput& input, Detection& detection, VerbsProbe& verbs,
               MemlockResult& memlock) {
  const bool real_sysfs = sysfs.root() == "/sys";
  detection = Detect(scan, sysfs);
  if (!mode.empty() && mode != "rdma") {
    detection.findings.push_back({Severity::kWarning, "env HKIM_MODE", "env.bad-value",
                                  "HKIM_MODE=" + mode + " is not rdma or tcp; detecting RDMA",
                                  "set HKIM_MODE to rdma or tcp"});
  }
  input.detection = &detection;
  if (!real_sysfs) {
    input.verbs_skipped_reason = "the sysfs root is " + sysfs.root() + ", not this machine's /sys";
  } else if (Var(scan, "HKIM_VERBS") == "off") {
    input.verbs_skipped_reason = "HKIM_VERBS=off";
  } else {
    std::map<std::string, std::vector<int>> ports;
    for (const Candidate& c : detection.candidates)
      for (const PortProbe& p : c.probe.ports) ports[c.name].push_back(p.number);
    verbs = ProbeVerbs(ports);
    input.verbs = &verbs;
  }
  auto system = MakeProcessMemlockSystem();
  memlock = RaiseMemlock(*system);
  input.memlock = &memlock;
  input.memlock_enforced = real_sysfs;
  input.peermem_loaded = sysfs.PeermemLoaded();
  input.net_interfaces = sysfs.NetInterfaces();
}

// The job's start: NCCL's configuration file for processes started beside it, the health check
// when asked, then execve (returns only when the command cannot run).
int StartJob(const RunContext& context, const EnvironmentScan& scan, const Decision& decision,
             HealthCheckMode health_mode) {
  const Options& options = context.options;
  std::ostream& out = *context.out;
  std::ostream& err = *context.err;
  // Processes started beside the job (kubectl exec, mpirun over ssh) read NCCL's own file.
  for (const Finding& f :
       PublishNcclConf({Var(scan, "NCCL_CONF_FILE"), PasswdHomeDir(), decision.set})) {
    if (f.severity != Severity::kNote || !options.quiet) err << FormatFinding(f) << "\n";
  }

  const std::vector<std::string> env = BuildEnvironment(context.environ_entries, decision.set);
  if (health_mode != HealthCheckMode::kOff) {
    const size_t slash = context.self_path.rfind('/');
    const std::string folder =
        slash == std::string::npos ? "." : context.self_path.substr(0, slash);
    HealthCheckResult health = RunHealthCheck(health_mode, folder + "/hkim-nccl-check", env);
    err << "hkim-wrapper: " << health.message << "\n";
    if (!health.proceed) return health.exit_code;
  }
  out.flush();
  err.flush();
  std::string error;
  int rc = ExecCommand(options.command, env, &error);
  err << "hkim-wrapper: error: " << error << "\n";
  return rc;
}

}  // namespace

int RunWrapper(const RunContext& context) {
  const Options& options = context.options;
  std::ostream& out = *context.out;
  std::ostream& err = *context.err;

  if (!options.install_to.empty()) return RunInstall(context);

  const EnvironmentScan scan = ScanEnvironment(context.environ_entries);
  auto var = [&](const std::string& name) { return Var(scan, name); };

  HealthCheckMode health_mode = HealthCheckMode::kOff;
  if (!ParseHealthCheckMode(var("HKIM_NCCL_CHECK"), &health_mode)) {
    err << "hkim-wrapper: error: HKIM_NCCL_CHECK=" << Printable(var("HKIM_NCCL_CHECK"))
        << " is not off, warn or fail [env.bad-value]\n  fix: set it to off, warn or fail\n";
    return 2;
  }
  const std::string mode = var("HKIM_MODE");
  const bool tcp_mode = mode == "tcp";

  DecideInput input;
  input.vars = scan.vars;
  input.policy = options.on_no_rdma;
  input.tcp_mode = tcp_mode;

  const SysfsProbe sysfs(options.sysfs_root);
  Detection detection;
  VerbsProbe verbs;
  MemlockResult memlock;
  if (!tcp_mode) ProbeNode(scan, mode, sysfs, input, detection, verbs, memlock);

  const Decision decision = Decide(input);
  const MemlockResult* memlock_report = tcp_mode ? nullptr : &memlock;

  const std::string json = FormatJsonRecord(decision, memlock_report);
  if (!options.report_file.empty()) {
    std::ofstream file(options.report_file, std::ios::trunc);
    file << json;
    if (!file)
      err << "hkim-wrapper: warning: cannot write --report " << options.report_file << "\n";
  }
  auto emit_record = [&]() {
    if (options.report_file.empty()) err << json;
  };

  if (options.check) {
    out << FormatCheck(decision, memlock_report);
    emit_record();
    return decision.fully_usable ? 0 : 1;
  }
  if (!options.quiet) err << FormatBanner(decision, memlock_report);
  emit_record();
  if (options.print_env) {
    out << FormatPrintEnv(decision);
    return decision.exit_code;
  }
  if (decision.exit_code != 0) {
    err << "hkim-wrapper: not starting " << options.command[0] << ": " << decision.reason << "\n";
    return decision.exit_code;
  }
  return StartJob(context, scan, decision, health_mode);
}

}  // namespace hkim::wrapper

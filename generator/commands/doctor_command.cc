#include "commands/doctor_command.h"

#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include "commands/cli_support.h"
#include "commands/cluster_option.h"
#include "discover/cluster_facts.h"
#include "doctor/doctor.h"
#include "doctor/doctor_html.h"
#include "discover/json_at.h"
#include "model/health_consumers.h"
#include "write/output_file.h"

namespace hkim {

void SetupDoctorCommand(CLI::App& app) {
  auto options = std::make_shared<DoctorOptions>();
  CLI::App* command = app.add_subcommand(
      "doctor",
      "Fleet table (and --html page) of the fabric health summaries (workload pods, health CronJob logs)");
  command->add_option("inputs", options->inputs,
                      "files with hkim-health output (`kubectl logs` saved); - or none = stdin");
  command->add_option("--cluster", options->cluster,
                      "cluster export (kubectl get nodes -o json): the node labels --group-by "
                      "reads, and each node's RdmaFabric condition for the --html page");
  command->add_option("--group-by", options->group_by,
                      "node label to group the table by, e.g. the scheduling.kueue level "
                      "oci.oraclecloud.com/rdma.network_block_id (needs --cluster)");
  command->add_option("--html", options->html,
                      "also write the report as one self-contained HTML page to FILE")
      ->type_name("FILE");
  command->add_flag("--force", options->force, "Overwrite the --html FILE when it exists");
  command->add_option("--heartbeat-seconds", options->heartbeat_seconds,
                      "the RdmaFabric condition's heartbeat interval (the writers'; default 300): "
                      "on the page an older heartbeat reads Unknown (stale), never healthy")
      ->check(CLI::Range(1LL, 7LL * 24 * 3600));
  auto output = std::make_shared<OutputChoice>();
  AddOutputOption(command, *output, {"text", "json"});
  command->footer(R"(
Examples:
  kubectl logs -n gpu-training-fabric-health -l app=train-fabric-health --prefix --tail=-1 | hkimgen doctor
  kubectl logs -n gpu-training -l app=train --prefix --tail=-1 | hkimgen doctor -   # the in-pod check
  hkimgen doctor node-a.log node-b.log
  hkimgen doctor node-a.log -o json          # the nodes and diagnostics as one JSON document
  hkimgen doctor pods.log --html fabric.html # the table, and the page for a browser
  hkimgen doctor pods.log --cluster nodes.json --group-by oci.oraclecloud.com/rdma.network_block_id

--html writes one self-contained page (inline CSS, no script, nothing fetched) beside the table or
the JSON: per node its last active check (when, how, busbw against its threshold), failures and
fixes, the suspects with their evidence and the nodes skipped as busy; ages count back from the
newest summary, as the table's. With --cluster the page also shows each node's RdmaFabric
condition (status, reason, message, how long since it changed and since its heartbeat; a
heartbeat older than --heartbeat-seconds reads Unknown, stale), and its ages count back from the
newest of the summaries and the heartbeats. It never writes through a symlink; --force replaces
a file.

Exit status: 0 every node passed, 1 a node failed, no summary was found or the page could not be
written, 2 unreadable input.)");
  command->callback([options, output] {
    if (!ResolveOutputChoice(*output, {"text", "json"}, "doctor", "", "", std::cerr)) {
      FinishCommand(1);
    }
    options->format = output->format;
    int status = RunDoctorCommand(*options, std::cin, std::cout, std::cerr);
    if (status != 0) throw CLI::RuntimeError(status);
  });
}

namespace {

nlohmann::json NodesJson(const std::vector<DoctorNode>& nodes) {
  const std::string now = NewestTime(nodes);
  nlohmann::json list = nlohmann::json::array();
  for (const DoctorNode& node : nodes) {
    nlohmann::json checks = nlohmann::json::array();
    for (const DoctorCheck& check : node.checks) {
      checks.push_back({{"name", check.name},
                        {"status", check.status},
                        {"detail", check.detail},
                        {"failures", check.failures},
                        {"fixes", check.fixes}});
    }
    list.push_back({{"node", node.node},
                    {"mode", node.mode},
                    {"time", node.time},
                    {"pod", node.pod},
                    {"passed", node.passed},
                    {"mark", node.mark},
                    {"tested", node.tested},
                    {"how", node.tested ? node.how : ""},
                    // Before the newest summary of the input (deterministic, unlike the clock).
                    {"seconds_since_test",
                     node.tested ? nlohmann::json(SecondsBetween(node.time, now)) : nullptr},
                    {"busy_skips", node.busy_skips},
                    {"last_busy", node.last_busy},
                    {"checks", checks}});
  }
  return list;
}

/// "<source>:<line>: problem" (CollectSummaries) as a gcc-style warning at that file and line.
Diagnostic SummaryWarning(const std::string& warning, const std::vector<std::string>& sources) {
  Diagnostic d{Severity::kWarning, {}, "", "doctor.summary", warning, ""};
  for (const std::string& source : sources) {
    if (warning.rfind(source + ":", 0) != 0) continue;
    const size_t colon = warning.find(": ", source.size() + 1);
    if (colon == std::string::npos) continue;
    const std::string line = warning.substr(source.size() + 1, colon - source.size() - 1);
    if (line.empty() || line.find_first_not_of("0123456789") != std::string::npos) continue;
    d.location = SourceLocation{source == "-" ? "<stdin>" : source, std::stoi(line), 0};
    d.message = warning.substr(colon + 2);
    break;
  }
  d.fix = "the line was skipped; the node's other summaries still count";
  return d;
}

/// Reads the --cluster export once: each node's group (its value of --group-by: the in-pod check
/// and the health check see the same nodes the scheduler's topology does) and its RdmaFabric
/// condition. False after reporting.
bool ReadClusterNodes(const DoctorOptions& options, std::vector<DoctorNode>& nodes,
                      DiagnosticSink& sink) {
  if (options.cluster.empty()) {
    if (options.group_by.empty()) return true;
    sink.Report(Diagnostic{Severity::kError, {}, "", "cli.usage",
                           "--group-by needs --cluster: the node labels come from a cluster export",
                           "add --cluster EXPORT (kubectl get nodes -o json > nodes.json)"});
    return false;
  }
  std::optional<discover::ExportInput> input = ReadExportInput(options.cluster, sink);
  if (!input) return false;
  const discover::ExportSet exports = discover::LoadExports({std::move(*input)}, sink);
  if (sink.ErrorCount() > 0) return false;
  std::map<std::string, DoctorCondition> condition_of;
  for (const discover::ExportObject& object : exports.objects) {
    if (object.kind != "Node" || object.json == nullptr) continue;
    const nlohmann::json& list = discover::At(*object.json, {"status", "conditions"});
    if (!list.is_array()) continue;
    for (const nlohmann::json& c : list) {
      auto text = [&](const char* key) {
        const nlohmann::json& value = discover::At(c, {key});
        return value.is_string() ? value.get<std::string>() : std::string();
      };
      if (!c.is_object() || text("type") != kFabricConditionType) continue;
      condition_of[object.name] = DoctorCondition{true,
                                                  text("status"),
                                                  text("reason"),
                                                  text("message"),
                                                  text("lastTransitionTime"),
                                                  text("lastHeartbeatTime")};
    }
  }
  std::map<std::string, std::string> group_of;
  if (!options.group_by.empty()) {
    const discover::ClusterFacts facts = discover::ExtractFacts(exports, sink);
    for (const discover::NodeFacts& node : facts.nodes) {
      auto it = node.labels.find(options.group_by);
      if (it != node.labels.end()) group_of[node.name] = it->second;
    }
  }
  for (DoctorNode& node : nodes) {
    auto group = group_of.find(node.node);
    node.group = group == group_of.end() ? "" : group->second;
    auto condition = condition_of.find(node.node);
    if (condition != condition_of.end()) node.condition = condition->second;
  }
  return sink.ErrorCount() == 0;
}

/// Writes the --html page. False after reporting (the path is then as it was).
bool WritePage(const DoctorOptions& options, const std::vector<DoctorNode>& nodes,
               DiagnosticSink& sink) {
  std::string problem;
  std::optional<std::string> page =
      FormatFleetPage(nodes, options.group_by, &problem, options.heartbeat_seconds);
  const SourceLocation file{options.html, 0, 0};
  if (!page) {
    sink.Report(Diagnostic{Severity::kError, file, "", "doctor.html", problem,
                           "report this as a defect of hkimgen (its page template)"});
    return false;
  }
  std::string reason;
  const OutputFileStatus written = WriteOutputFile(options.html, *page, options.force, &reason);
  if (written == OutputFileStatus::kExists) {
    sink.Report(Diagnostic{Severity::kError, file, "", "io.exists", "the file exists",
                           "choose another --html FILE, or add --force to overwrite it"});
    return false;
  }
  if (written == OutputFileStatus::kFailed) {
    sink.Report(Diagnostic{Severity::kError, file, "", "io.write", "cannot write the page: " + reason,
                           "check the folder exists and is writable"});
    return false;
  }
  return true;
}

}  // namespace

int RunDoctorCommand(const DoctorOptions& options, std::istream& in, std::ostream& out,
                     std::ostream& err) {
  const bool json = options.format == "json";
  DiagnosticSink sink;
  std::vector<DoctorInput> inputs;
  std::vector<std::string> names = options.inputs;
  if (names.empty()) names.push_back("-");
  auto finish = [&](int status, nlohmann::json result) {
    if (json) {
      out << DumpJson(JsonReport("doctor", status, sink, std::move(result))) << '\n';
    } else {
      PrintDiagnostics(sink, {}, err);
    }
    return status;
  };
  for (const std::string& name : names) {
    std::ostringstream text;
    if (name == "-") {
      text << in.rdbuf();
    } else {
      std::ifstream file(name, std::ios::binary);
      if (!file) {
        sink.Report(Diagnostic{Severity::kError, SourceLocation{name, 0, 0}, "", "doctor.read",
                               "cannot read the file", "check the file name and permissions"});
        return finish(2, nullptr);
      }
      text << file.rdbuf();
    }
    inputs.push_back({name, text.str()});
  }
  std::vector<std::string> warnings;
  std::vector<DoctorNode> nodes = CollectSummaries(inputs, warnings);
  if (!ReadClusterNodes(options, nodes, sink)) return finish(1, nullptr);
  for (const std::string& warning : warnings) sink.Report(SummaryWarning(warning, names));
  if (nodes.empty()) {
    sink.Report(Diagnostic{Severity::kError, {}, "", "doctor.empty",
                           "no HKIM_HEALTH_SUMMARY line in the input",
                           "pipe the logs of the workload's pods or the health CronJob's pods, e.g. "
                           "kubectl logs -n <ns>-fabric-health -l app=<workload>-fabric-health --tail=-1 | "
                           "hkimgen doctor"});
    return finish(1, nullptr);
  }
  int status = 0;
  for (const DoctorNode& node : nodes) {
    if (!node.passed) status = 1;
  }
  if (!options.html.empty() && !WritePage(options, nodes, sink)) return finish(1, nullptr);
  if (!json) out << FormatFleetTable(nodes, options.group_by);
  return finish(status, {{"nodes", NodesJson(nodes)}});
}

}  // namespace hkim

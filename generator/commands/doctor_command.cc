#include "commands/doctor_command.h"

#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "doctor/doctor.h"

namespace hkim {

void SetupDoctorCommand(CLI::App& app) {
  auto options = std::make_shared<DoctorOptions>();
  CLI::App* command = app.add_subcommand(
      "doctor", "Fleet table of the fabric health summaries (gate Job, health CronJob logs)");
  command->add_option("inputs", options->inputs,
                      "files with hkim-health output (`kubectl logs` saved); - or none = stdin");
  command->footer(R"(
Examples:
  kubectl logs -n gpu-training -l app=train-fabric-health --prefix --tail=-1 | hkimgen doctor
  kubectl logs -n gpu-training job/train-fabric-gate --all-containers | hkimgen doctor -
  hkimgen doctor node-a.log node-b.log

Exit status: 0 every node passed, 1 a node failed or no summary was found, 2 unreadable input.)");
  command->callback([options] {
    int status = RunDoctorCommand(*options, std::cin, std::cout, std::cerr);
    if (status != 0) throw CLI::RuntimeError(status);
  });
}

int RunDoctorCommand(const DoctorOptions& options, std::istream& in, std::ostream& out,
                     std::ostream& err) {
  std::vector<DoctorInput> inputs;
  std::vector<std::string> names = options.inputs;
  if (names.empty()) names.push_back("-");
  for (const std::string& name : names) {
    std::ostringstream text;
    if (name == "-") {
      text << in.rdbuf();
    } else {
      std::ifstream file(name, std::ios::binary);
      if (!file) {
        err << name << ": error: cannot read the file [doctor.read]\n";
        return 2;
      }
      text << file.rdbuf();
    }
    inputs.push_back({name, text.str()});
  }
  std::vector<std::string> warnings;
  const std::vector<DoctorNode> nodes = CollectSummaries(inputs, warnings);
  for (const std::string& warning : warnings) err << warning << ": warning [doctor.summary]\n";
  if (nodes.empty()) {
    err << "hkimgen: error: no HKIM_HEALTH_SUMMARY line in the input [doctor.empty]\n"
           "fix: pipe the logs of the gate Job or the health CronJob's pods, e.g. kubectl logs "
           "-n <ns> -l app=<workload>-fabric-health --tail=-1 | hkimgen doctor\n";
    return 1;
  }
  out << FormatFleetTable(nodes);
  for (const DoctorNode& node : nodes)
    if (!node.passed) return 1;
  return 0;
}

}  // namespace hkim

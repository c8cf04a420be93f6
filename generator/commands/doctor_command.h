#pragma once

// `hkimgen doctor FILE...|-`: the fleet table from the JSON summaries that the workload's pods
// (the in-pod fabric check) and the periodic health CronJob print (files, or `kubectl logs` output on stdin).

#include <CLI/CLI.hpp>
#include <istream>
#include <ostream>
#include <string>
#include <vector>

namespace hkim {

struct DoctorOptions {
  std::vector<std::string> inputs;  ///< files; "-" (or none) = stdin
  std::string format = "text";      ///< -o: text (table on stdout) or json (one report)
  std::string cluster;              ///< --cluster EXPORT: node labels (--group-by), conditions
  std::string group_by;             ///< --group-by LABEL: a topology level (network block, rack)
  std::string html;                 ///< --html FILE: also write the page (doctor/doctor_html.h)
  bool force = false;               ///< --force: replace an existing FILE
  /// --heartbeat-seconds: the RdmaFabric writers' heartbeat interval; an older heartbeat reads
  /// Unknown (stale) on the page.
  long long heartbeat_seconds = 300;
};

/// Adds the `doctor` sub-command to `app`.
void SetupDoctorCommand(CLI::App& app);

/// Prints the table to `out` (or, with -o json, the report) and, with `html`, writes the page
/// there too (created whole or not at all; an existing file only with `force`). Exit: 0 every node passed, 1 a node failed or no summary was
/// found (the message says how to get some), 2 an input could not be read.
int RunDoctorCommand(const DoctorOptions& options, std::istream& in, std::ostream& out,
                     std::ostream& err);

}  // namespace hkim

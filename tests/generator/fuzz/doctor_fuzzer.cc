// libFuzzer target over what `hkimgen doctor` reads: arbitrary bytes as the `kubectl logs` text
// it is piped (HKIM_HEALTH_SUMMARY lines among other lines, `--prefix` and `--timestamps`
// prefixes, several pods mixed), through the whole command (RunDoctorCommand) in both output
// formats, and through the fleet table grouped by a label (FormatFleetTable with each node's
// group taken from its pod name), and the --html page (FormatFleetPage). Promises checked: exit 0 or 1 (stdin cannot be unreadable),
// every printed line free of bytes a terminal acts on and a few KiB at most, and `-o json`
// one valid JSON document, the page always rendered, with no markup of the input's (no
// "<script", only the template's tags) and no control byte but its newlines. Any broken promise aborts (a crash for libFuzzer).
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "commands/doctor_command.h"
#include "doctor/doctor.h"
#include "doctor/doctor_html.h"

namespace {

void ExpectPrintable(const std::string& text) {
  std::size_t line = 0;
  for (const char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '\n') {
      line = 0;
      continue;
    }
    if (u < 0x20 || u == 0x7f) std::abort();
    if (++line > 64 * 1024) std::abort();
  }
}

int Run(const std::string& text, const std::string& format, std::string* out) {
  hkim::DoctorOptions options;
  options.format = format;
  std::istringstream in(text);
  std::ostringstream stdout_text, stderr_text;
  const int status = hkim::RunDoctorCommand(options, in, stdout_text, stderr_text);
  if (status != 0 && status != 1) std::abort();
  ExpectPrintable(stderr_text.str());
  *out = stdout_text.str();
  return status;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::string table, report;
  const int status = Run(text, "text", &table);
  ExpectPrintable(table);
  if (Run(text, "json", &report) != status) std::abort();  // the format does not change the verdict
  const nlohmann::json parsed = nlohmann::json::parse(report, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) std::abort();

  std::vector<std::string> warnings;
  std::vector<hkim::DoctorNode> nodes = hkim::CollectSummaries({{"fuzz.log", text}}, warnings);
  for (const std::string& warning : warnings)
    if (warning.rfind("fuzz.log:", 0) != 0) std::abort();  // every warning names its line
  for (hkim::DoctorNode& node : nodes) node.group = node.pod;
  ExpectPrintable(hkim::FormatFleetTable(nodes, "topology.kubernetes.io/zone"));
  std::string problem;
  const std::optional<std::string> page =
      hkim::FormatFleetPage(nodes, "topology.kubernetes.io/zone", &problem);
  if (!page || page->rfind("<!DOCTYPE html>", 0) != 0) std::abort();
  if (page->find("<script") != std::string::npos) std::abort();
  for (const char c : *page)
    if (static_cast<unsigned char>(c) < 0x20 && c != '\n') std::abort();
  return 0;
}

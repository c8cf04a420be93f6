// `hkimgen doctor --html`: the page's content from the shipped sample logs, its escaping of what
// the logs say, and the file it writes.
#include "doctor/doctor_html.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "commands/doctor_command.h"
#include "test_files.h"

namespace hkim {
namespace {

using test_files::ReadFile;

std::string Sample(const std::string& name) {
  return ReadFile(std::filesystem::path(HKIM_SOURCE_DIR) / "docs" / "samples" / name);
}

std::string Page(const std::vector<std::string>& samples, const std::string& group_label = "") {
  std::vector<DoctorInput> inputs;
  for (const std::string& name : samples) inputs.push_back({name, Sample(name)});
  std::vector<std::string> warnings;
  const std::vector<DoctorNode> nodes = CollectSummaries(inputs, warnings);
  EXPECT_TRUE(warnings.empty());
  std::string error;
  std::optional<std::string> page = FormatFleetPage(nodes, group_label, &error);
  EXPECT_TRUE(page) << error;
  return page.value_or("");
}

bool Has(const std::string& page, const std::string& text) {
  return page.find(text) != std::string::npos;
}

TEST(DoctorHtml, ReadsTheBusbwAndItsThresholdOfACheckDetail) {
  auto reading = ParseBusbw("busbw 194.60 GB/s via NET/IB (min 150.00)");
  ASSERT_TRUE(reading);
  EXPECT_DOUBLE_EQ(reading->busbw_gbps, 194.6);
  EXPECT_DOUBLE_EQ(reading->threshold_gbps, 150);
  EXPECT_FALSE(ParseBusbw("4 rails, 47.90-48.80 GB/s each"));
  EXPECT_FALSE(ParseBusbw("busbw 4.30 GB/s"));          // no threshold
  EXPECT_FALSE(ParseBusbw("busbw x GB/s (min 150.00)"));  // no number
  EXPECT_FALSE(ParseBusbw("busbw 4.30 GB/s (min 0)"));    // no ratio to draw
}

TEST(DoctorHtml, ConditionWithAnOldHeartbeatReadsUnknownNeverHealthy) {
  DoctorCondition fresh{true, "False", "RdmaFabricHasNoIssues", "", "2026-11-20T10:00:00Z",
                        "2026-11-25T03:18:00Z"};
  const std::string now = "2026-11-25T03:19:00Z";
  EXPECT_EQ(ReadCondition(fresh, now, 300).shown, "False");
  EXPECT_FALSE(ReadCondition(fresh, now, 300).stale);
  DoctorCondition old = fresh;
  old.last_heartbeat = "2026-11-25T03:13:59Z";  // 301 s before
  EXPECT_EQ(ReadCondition(old, now, 300).shown, "Unknown");
  EXPECT_TRUE(ReadCondition(old, now, 300).stale);
  EXPECT_EQ(ReadCondition(old, now, 400).shown, "False");
  DoctorCondition unreadable = fresh;
  unreadable.last_heartbeat = "yesterday";
  EXPECT_EQ(ReadCondition(unreadable, now, 300).shown, "Unknown");
  DoctorCondition written_unknown = fresh;
  written_unknown.status = "Unknown";
  EXPECT_EQ(ReadCondition(written_unknown, now, 300).shown, "Unknown");
  DoctorCondition issues = fresh;
  issues.status = "True";
  EXPECT_EQ(ReadCondition(issues, now, 300).shown, "True");
  DoctorCondition odd = fresh;
  odd.status = "Maybe";
  EXPECT_EQ(ReadCondition(odd, now, 300).shown, "Unknown");
  EXPECT_EQ(ReadCondition(DoctorCondition{}, now, 300).shown, "");
}

TEST(DoctorHtml, CountersTrendOverEveryReadOfTheNodeOldestFirst) {
  std::vector<std::string> warnings;
  const std::vector<DoctorNode> nodes =
      CollectSummaries({{"pod-counters.log", Sample("pod-counters.log")}}, warnings);
  EXPECT_TRUE(warnings.empty());
  ASSERT_EQ(nodes.size(), 2u);
  const DoctorNode& bad = nodes[1];
  ASSERT_EQ(bad.node, "moc-r4pcc02u25-nairr");
  ASSERT_EQ(bad.counter_reads.size(), 2u);
  EXPECT_EQ(bad.counter_reads[0].time, "2026-11-22T08:00:00Z");
  ASSERT_EQ(bad.counter_reads[1].moved.size(), 2u);
  EXPECT_EQ(bad.counter_reads[1].moved[1].counter, "symbol_error");
  EXPECT_EQ(bad.counter_reads[1].moved[1].delta, 150);
  EXPECT_EQ(bad.counter_reads[1].moved[1].port, "1");
  std::string error;
  const std::string page = FormatFleetPage(nodes, "", &error).value_or("");
  EXPECT_TRUE(Has(page, "<td class=\"mono\">+3, +150</td><td class=\"s-fail\">rising</td>"))
      << page;
  EXPECT_TRUE(Has(page, "2 read(s), 2026-11-22T08:00:00Z to 2026-11-23T10:00:00Z; none moved"));
  // A summary whose counters are of another shape adds no read.
  const std::string odd =
      "HKIM_HEALTH_SUMMARY {\"tool\":\"hkim-health\",\"format\":1,\"mode\":\"pod\","
      "\"node\":\"n\",\"time\":\"2026-11-22T08:00:00Z\",\"passed\":true,\"checks\":[],"
      "\"counters\":{\"moved\":[{\"device\":\"d\",\"deltas\":{\"x\":\"many\"}}, 7]}}\n";
  const std::vector<DoctorNode> one = CollectSummaries({{"odd.log", odd}}, warnings);
  ASSERT_EQ(one.size(), 1u);
  ASSERT_EQ(one[0].counter_reads.size(), 1u);
  EXPECT_TRUE(one[0].counter_reads[0].moved.empty());
}

TEST(DoctorHtml, FailedGateShowsTheFailingNodesTheSuspectRailAndItsEvidence) {
  const std::string page = Page({"gate-failed.log", "health-periodic.log"});
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  for (const char* node : {"moc-r4pcc02u17-nairr", "moc-r4pcc02u18-nairr", "moc-r4pcc02u25-nairr"})
    EXPECT_TRUE(Has(page, std::string("<td class=\"mono\">") + node + "</td>")) << node;
  EXPECT_TRUE(Has(page, "<span class=\"bad\">3 failing</span>")) << page;
  EXPECT_TRUE(Has(page, "<span class=\"badge r-fail\">FAIL</span>"));
  EXPECT_FALSE(Has(page, "r-pass\">PASS"));
  // The suspect: node, rail, measured against expected, transport and evidence.
  EXPECT_TRUE(Has(page, "<tr><td class=\"mono\">moc-r4pcc02u25-nairr</td><td class=\"mono\">mlx5_9"
                        "</td><td>1.1 GB/s</td><td>&ge; 37.5 GB/s</td><td>NET/Socket</td>"
                        "<td class=\"evidence\">2 of 2 pair(s) with it failed on rail mlx5_9; its "
                        "partners passed with others</td>"))
      << page;
  // The last active check: when, how, how long before the newest summary (the busy night).
  EXPECT_TRUE(Has(page, "Last active check 2026-11-23T14:20:31Z (1d 12h before the newest summary), by gate"));
  // busbw against its threshold, drawn and in numbers.
  EXPECT_TRUE(Has(page, "<span class=\"bar low\"><i style=\"width: 1%\"></i><b></b></span>4.3 / &ge; 150 GB/s (3%)"))
      << page;
  // The node the night found busy, how often and how long untested.
  EXPECT_TRUE(Has(page, "<tr><td class=\"mono\">moc-r4pcc02u17-nairr</td><td>1</td><td class=\"mono\">"
                        "2026-11-25T03:17:05Z</td><td>0s</td><td>1d 12h</td></tr>"))
      << page;
  // Failures and fixes, the apostrophe of the log's text escaped.
  EXPECT_TRUE(Has(page, "<li class=\"fix\">fix: check the rail&apos;s link and GID on the suspect node"));
}

TEST(DoctorHtml, PassedGateShowsPassAndNoSuspects) {
  const std::string page = Page({"gate-passed.log"});
  EXPECT_TRUE(Has(page, "<span>3 passing</span>"));
  EXPECT_TRUE(Has(page, "<span class=\"badge r-pass\">PASS</span>"));
  EXPECT_FALSE(Has(page, "badge r-fail"));
  EXPECT_FALSE(Has(page, "<h2>Suspects</h2>"));
  EXPECT_FALSE(Has(page, "<h2>Skipped as busy</h2>"));
  EXPECT_TRUE(Has(page, "<span class=\"bar\"><i style=\"width: 65%\"></i><b></b></span>194.6 / &ge; 150 GB/s (130%)"))
      << page;
}

TEST(DoctorHtml, PeriodicRunShowsTheLastTestBehindTheBusyNight) {
  const std::string page = Page({"health-periodic.log"});
  EXPECT_TRUE(Has(page, "<td>node</td><td>1d 23h</td><td>1 night(s), last 0s ago</td><td>label pass</td>"))
      << page;
  EXPECT_TRUE(Has(page, "361.2 / &ge; 100 GB/s (361%)"));
}

TEST(DoctorHtml, NodeOnlyEverSkippedAsBusyIsUntested) {
  const std::string log =
      R"X(HKIM_HEALTH_SUMMARY {"tool":"hkim-health","mode":"night","node":"gpu-a","time":"2026-11-24T03:00:00Z","passed":true,)X"
      R"X("checks":[{"name":"inventory","status":"pass"},{"name":"placement","status":"skip","detail":"busy: checked when its job starts"}]})X"
      "\n"
      R"X(HKIM_HEALTH_SUMMARY {"tool":"hkim-health","mode":"night","node":"gpu-a","time":"2026-11-25T03:00:00Z","passed":true,)X"
      R"X("checks":[{"name":"inventory","status":"pass"},{"name":"placement","status":"skip","detail":"busy: checked when its job starts"}]})X"
      "\n";
  std::vector<std::string> warnings;
  std::string error;
  const std::string page =
      FormatFleetPage(CollectSummaries({{"-", log}}, warnings), "", &error).value_or("");
  EXPECT_TRUE(Has(page, "<span class=\"badge r-untested\">UNTESTED</span></td><td class=\"mono\">never</td>"))
      << page;
  EXPECT_TRUE(Has(page, "Never tested: the latest summary (2026-11-25T03:00:00Z) only skipped it"));
  EXPECT_TRUE(Has(page, "<tr><td class=\"mono\">gpu-a</td><td>2</td><td class=\"mono\">"
                        "2026-11-25T03:00:00Z</td><td>0s</td><td>never tested</td></tr>"))
      << page;
  EXPECT_TRUE(Has(page, "<span>1 never tested</span>"));
  EXPECT_TRUE(Has(page, "<span>0 passing</span>"));
}

TEST(DoctorHtml, IsSelfContained) {
  const std::string page = Page({"gate-failed.log", "health-periodic.log"});
  for (const char* external : {"<script", "<link", "src=", "http://", "https://", "@import", "url("})
    EXPECT_FALSE(Has(page, external)) << external;
  EXPECT_TRUE(Has(page, "<style>"));
}

TEST(DoctorHtml, EscapesEverythingTheLogsSay) {
  const std::string log =
      R"X(HKIM_HEALTH_SUMMARY {"tool":"hkim-health","mode":"gate","node":"<script>alert(1)</script>","time":"2026-11-23T03:00:00Z","passed":false,)X"
      R"X("pod":"p\"><img src=x onerror=alert(2)>","mark":"a&b\u001b[2J {{nodes}}",)X"
      R"X("checks":[{"name":"<b>n</b>","status":"fail\" class=\"x","detail":"busbw 1.00 GB/s (min 2.00) <i>","failures":["<hr>"],"fixes":["'x'"]}],)X"
      R"X("suspects":[{"node":"<script>alert(1)</script>","rail":"<u>r</u>","evidence":"</td></tr></table>","transport":"<s>"}]})X"
      "\n";
  std::vector<std::string> warnings;
  const std::vector<DoctorNode> nodes = CollectSummaries({{"-", log}}, warnings);
  std::string error;
  const std::string page = FormatFleetPage(nodes, "", &error).value_or("");
  ASSERT_FALSE(page.empty()) << error;
  for (const char* raw : {"<script>", "<img", "<b>n", "<hr>", "<u>", "</td></tr></table>", "<s>",
                          "<i>", "'x'", "\x1b"})
    EXPECT_FALSE(Has(page, raw)) << raw;
  EXPECT_TRUE(Has(page, "&lt;script&gt;alert(1)&lt;/script&gt;"));
  EXPECT_TRUE(Has(page, "p&quot;&gt;&lt;img src=x onerror=alert(2)&gt;"));
  // The control byte a visible escape, then escaped; a tag in a value stays text.
  EXPECT_TRUE(Has(page, "a&amp;b\\x1b[2J {{nodes}}")) << page;
  // A status from a log never becomes a CSS class: an unknown one gets the fixed "other".
  EXPECT_TRUE(Has(page, "<td class=\"s-other\">fail&quot; class=&quot;x</td>")) << page;
}

TEST(DoctorHtml, LongValuesAreCut) {
  const std::string big(1 << 20, 'n');
  const std::string log = R"X(HKIM_HEALTH_SUMMARY {"tool":"hkim-health","mode":"node","node":")X" +
                          big + R"X(","time":"t","passed":true,"checks":[]})X" + "\n";
  std::vector<std::string> warnings;
  std::string error;
  const std::string page =
      FormatFleetPage(CollectSummaries({{"-", log}}, warnings), "", &error).value_or("");
  ASSERT_FALSE(page.empty()) << error;
  EXPECT_LT(page.size(), 20000u);
  EXPECT_TRUE(Has(page, "… (1 MiB)")) << page.substr(0, 4000);
}

TEST(DoctorHtml, GroupedPageNamesTheBlockColumn) {
  std::vector<std::string> warnings;
  std::vector<DoctorNode> nodes = CollectSummaries({{"-", Sample("gate-failed.log")}}, warnings);
  for (DoctorNode& node : nodes) node.group = node.node == "moc-r4pcc02u25-nairr" ? "block-b" : "block-a";
  std::string error;
  const std::string page =
      FormatFleetPage(nodes, "oci.oraclecloud.com/rdma.network_block_id", &error).value_or("");
  EXPECT_TRUE(Has(page, "<th>rdma.network_block_id</th>")) << error;
  EXPECT_TRUE(Has(page, "<td class=\"mono\">moc-r4pcc02u25-nairr</td><td class=\"mono\">block-b</td>"
                        "<td class=\"mono\">mlx5_9</td>"))
      << page;
}

TEST(DoctorCommand, HtmlWritesThePageBesideTheTableAndRefusesToOverwrite) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("hkim-doctor-html-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  DoctorOptions options;
  options.inputs = {std::string(HKIM_SOURCE_DIR) + "/docs/samples/gate-failed.log"};
  options.html = (dir / "fabric.html").string();
  std::istringstream in;
  std::ostringstream out, err;
  EXPECT_EQ(RunDoctorCommand(options, in, out, err), 1) << err.str();
  EXPECT_TRUE(Has(out.str(), "Suspects (the gate's pairwise localization):"));  // the table too
  const std::string page = ReadFile(options.html);
  EXPECT_TRUE(Has(page, "mlx5_9"));

  // An existing file stays as it was without --force.
  { std::ofstream(options.html) << "mine"; }
  std::ostringstream out2, err2;
  EXPECT_EQ(RunDoctorCommand(options, in, out2, err2), 1);
  EXPECT_TRUE(Has(err2.str(), "fabric.html: error: the file exists [io.exists]")) << err2.str();
  EXPECT_EQ(ReadFile(options.html), "mine");
  options.force = true;
  std::ostringstream out3, err3;
  EXPECT_EQ(RunDoctorCommand(options, in, out3, err3), 1);
  EXPECT_EQ(ReadFile(options.html), page);

  // No summary, no page.
  options.inputs = {std::string(HKIM_SOURCE_DIR) + "/README.md"};
  options.html = (dir / "none.html").string();
  std::ostringstream out4, err4;
  EXPECT_EQ(RunDoctorCommand(options, in, out4, err4), 1);
  EXPECT_FALSE(std::filesystem::exists(options.html));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hkim

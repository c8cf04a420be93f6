// The passive link agent (hkim-health links) and the RdmaFabric node condition: the sysfs
// parsers, the counters' windows and thresholds, and the agent against a fake sysfs folder and a
// local HTTPS stand-in for the API server that keeps one Node and applies the condition patches
// as the API server's strategic merge does (merged by type, resourceVersion checked).

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "fake_api_server.h"
#include "link_sysfs.h"
#include "link_watch.h"
#include "links_mode.h"
#include "node_condition.h"

namespace hkim::health {
namespace {

using nlohmann::json;
using testing::CannedResponse;
using testing::FakeApiServer;
using testing::RecordedRequest;
namespace fs = std::filesystem;

std::string TempDir() {
  std::string pattern = ::testing::TempDir() + "hkim-links.XXXXXX";
  return ::mkdtemp(pattern.data());
}

void Write(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << text;
}

// A fake /sys/class/infiniband with `device`'s port 1.
struct FakePort {
  std::string root, device;
  void Set(const std::string& state, uint64_t link_downed, uint64_t symbol_error,
           uint64_t rnr = 0) {
    const std::string port = root + "/" + device + "/ports/1";
    Write(port + "/state", state == "ACTIVE" ? "4: ACTIVE\n" : "1: DOWN\n");
    Write(port + "/phys_state", state == "ACTIVE" ? "5: LinkUp\n" : "3: Disabled\n");
    Write(port + "/counters/link_downed", std::to_string(link_downed) + "\n");
    Write(port + "/counters/symbol_error", std::to_string(symbol_error) + "\n");
    Write(port + "/counters/port_rcv_errors", "0\n");
    Write(port + "/hw_counters/rnr_nak_retry_err", std::to_string(rnr) + "\n");
    Write(port + "/hw_counters/out_of_sequence", "3\n");
  }
};

TEST(LinkSysfs, ParsesCountersStrictly) {
  uint64_t v = 0;
  EXPECT_TRUE(ParseCounterText("123\n", &v));
  EXPECT_EQ(v, 123u);
  EXPECT_TRUE(ParseCounterText("18446744073709551615", &v));
  EXPECT_EQ(v, UINT64_MAX);
  for (const char* bad : {"", "\n", "-1", "1 2", "18446744073709551616", "0x10", "12\n\n", "1a"})
    EXPECT_FALSE(ParseCounterText(bad, &v)) << bad;
}

TEST(LinkSysfs, ParsesPortStates) {
  std::string name;
  EXPECT_TRUE(ParsePortStateText("4: ACTIVE\n", &name));
  EXPECT_EQ(name, "ACTIVE");
  EXPECT_TRUE(ParsePortStateText("5: LinkUp", &name));
  EXPECT_EQ(name, "LinkUp");
  for (const char* bad : {"ACTIVE", "4:ACTIVE", "4: ", "4: ACT IVE", ": ACTIVE", "4: \x1b[31m"})
    EXPECT_FALSE(ParsePortStateText(bad, &name)) << bad;
}

TEST(LinkSysfs, ParsesRailListsAndThresholds) {
  std::vector<RailDevice> rails;
  std::string error;
  ASSERT_TRUE(ParseRailList("rail0=mlx5_6,rail1=@eno5np0", &rails, &error)) << error;
  ASSERT_EQ(rails.size(), 2u);
  EXPECT_EQ(rails[1].device, "@eno5np0");
  EXPECT_FALSE(ParseRailList("rail0", &rails, &error));
  EXPECT_FALSE(ParseRailList("r=../x", &rails, &error));
  std::vector<CounterThreshold> thresholds;
  ASSERT_TRUE(ParseThresholds(kDefaultLinkThresholds, &thresholds, &error)) << error;
  ASSERT_EQ(thresholds.size(), 3u);
  EXPECT_EQ(thresholds[2].counter, "symbol_error");
  EXPECT_EQ(thresholds[2].max_increase, 120u);
  EXPECT_EQ(thresholds[2].window_s, 3600);
  thresholds.clear();
  EXPECT_FALSE(ParseThresholds("a=1/0", &thresholds, &error));
  EXPECT_FALSE(ParseThresholds("a=1/60,a=2/60", &thresholds, &error));
  EXPECT_EQ(error, "counter 'a' is named twice");
  EXPECT_FALSE(ParseThresholds("a=-1/60", &thresholds, &error));
}

TEST(LinkSysfs, ResolvesAnInterfaceToItsDeviceAndReportsAMissingOne) {
  const std::string root = TempDir();
  FakePort{root, "mlx5_0"}.Set("ACTIVE", 0, 0);
  FakePort{root, "mlx5_1"}.Set("ACTIVE", 0, 0);
  Write(root + "/mlx5_1/device/net/eno5np0/ifindex", "5\n");
  const auto rails = ResolveRails(root, {{"r0", "@eno5np0"}, {"r1", "@gone0"}});
  ASSERT_EQ(rails.size(), 2u);
  EXPECT_EQ(rails[0].device, "mlx5_1");
  EXPECT_EQ(rails[1].device, "");
  const auto ports = ReadRailPorts(root, rails[1]);
  ASSERT_EQ(ports.size(), 1u);
  EXPECT_EQ(ports[0].state, "MISSING");
  EXPECT_EQ(ResolveRails(root, {}).size(), 2u);  // none named: every device
  const auto read = ReadRailPorts(root, rails[0]);
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read[0].counters.at("rnr_nak_retry_err"), 0u);
  EXPECT_EQ(read[0].counters.at("out_of_sequence"), 3u);
  EXPECT_EQ(read[0].phys_state, "LinkUp");
}

PortSample Sample(uint64_t link_downed, uint64_t symbol_error, const std::string& state = "ACTIVE") {
  PortSample s;
  s.rail = "r0";
  s.device = "mlx5_6";
  s.state = state;
  s.counters = {{"link_downed", link_downed}, {"symbol_error", symbol_error}};
  return s;
}

TEST(LinkWatch, HoldsALinkDownForItsWindowAndRatesSymbolErrorsPerHour) {
  std::vector<CounterThreshold> thresholds;
  std::string error;
  ASSERT_TRUE(ParseThresholds(kDefaultLinkThresholds, &thresholds, &error));
  LinkWatch watch(thresholds);
  watch.Add(0, {Sample(3, 1000)});
  EXPECT_TRUE(watch.Issues().empty());  // the first sample is only a base
  watch.Add(60, {Sample(4, 1100)});
  auto issues = watch.Issues();
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(DescribeIssue(issues[0]),
            "rail r0 (mlx5_6 port 1): link_downed +1 within 6 h (threshold: any increase, now 4)");
  watch.Add(120, {Sample(4, 1121)});  // symbol_error +121 within the hour
  EXPECT_EQ(watch.Issues().size(), 2u);
  for (double t = 180; t <= 3720; t += 60) watch.Add(t, {Sample(4, 1121)});
  issues = watch.Issues();  // an hour later: the symbol errors are out of their window
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_NE(issues[0].what.find("link_downed"), std::string::npos);
  for (double t = 3780; t <= 21660 + 60; t += 60) watch.Add(t, {Sample(4, 1121)});
  EXPECT_TRUE(watch.Issues().empty());  // six hours after the link went down
  EXPECT_LT(watch.SampleCount(), 2 * 370u);
}

TEST(LinkWatch, ACounterResetStartsAgainAndADownPortIsAnIssue) {
  LinkWatch watch({{"link_downed", 0, 21600}});
  watch.Add(0, {Sample(9, 0)});
  watch.Add(60, {Sample(0, 0)});  // driver reloaded
  EXPECT_TRUE(watch.Issues().empty());
  watch.Add(120, {Sample(0, 0, "DOWN")});
  const auto issues = watch.Issues();
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].what, "state DOWN");
}

TEST(NodeCondition, PartsRoundTripAndOtherWritersAreKept) {
  const auto parts = ParseConditionParts("links: rail r0 down | night: node x rail r1: 12 GB/s | junk");
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts.at("night"), "node x rail r1: 12 GB/s");
  EXPECT_EQ(parts.at("other"), "junk");
  EXPECT_EQ(ComposeConditionMessage({{"links", "a | b"}, {"night", "c"}}), "links: a / b | night: c");

  json node = {{"metadata", {{"name", "n"}, {"resourceVersion", "5"}}},
               {"status",
                {{"conditions",
                  json::array({{{"type", "Ready"}, {"status", "True"}},
                               {{"type", "RdmaFabric"},
                                {"status", "True"},
                                {"reason", "RdmaFabricHasIssues"},
                                {"message", "night: node n rail r1: 12 GB/s vs >= 45"},
                                {"lastTransitionTime", "2026-11-28T03:00:00Z"},
                                {"lastHeartbeatTime", "2026-11-28T03:00:00Z"}}})}}}};
  const json patch = ConditionPatch(node, {"links", "", "2026-11-28T04:00:00Z", "ok"});
  const json& c = patch["status"]["conditions"][0];
  EXPECT_EQ(c["status"], "True");  // the night's issue stays until the night clears it
  EXPECT_EQ(c["message"], "night: node n rail r1: 12 GB/s vs >= 45");
  EXPECT_EQ(c["lastTransitionTime"], "2026-11-28T03:00:00Z");
  EXPECT_EQ(c["lastHeartbeatTime"], "2026-11-28T04:00:00Z");
  EXPECT_EQ(patch["metadata"]["resourceVersion"], "5");
  EXPECT_EQ(patch["status"]["conditions"].size(), 1u);  // never the kubelet's conditions
  const json cleared = ConditionPatch(node, {"night", "", "2026-11-29T03:00:00Z", "all passed"});
  EXPECT_EQ(cleared["status"]["conditions"][0]["status"], "False");
  EXPECT_EQ(cleared["status"]["conditions"][0]["reason"], "RdmaFabricHasNoIssues");
  EXPECT_EQ(cleared["status"]["conditions"][0]["lastTransitionTime"], "2026-11-29T03:00:00Z");
}

TEST(NodeCondition, AReaderTakesAStaleOrMissingHeartbeatAsUnknownNeverHealthy) {
  std::time_t t0 = 0;
  ASSERT_TRUE(ParseUtcTime("2026-11-28T03:00:00Z", &t0));
  json node = {{"status",
                {{"conditions",
                  json::array({{{"type", "RdmaFabric"},
                                {"status", "False"},
                                {"reason", "RdmaFabricHasNoIssues"},
                                {"lastHeartbeatTime", "2026-11-28T03:00:00Z"}}})}}}};
  ConditionView view = ReadFabricCondition(node, t0 + 300, 300);
  EXPECT_EQ(view.status, "False");
  EXPECT_EQ(view.reason, "RdmaFabricHasNoIssues");
  EXPECT_EQ(view.age_s, 300);
  view = ReadFabricCondition(node, t0 + 301, 300);
  EXPECT_EQ(view.status, "Unknown");
  EXPECT_EQ(view.reason, "RdmaFabricCheckStale");
  EXPECT_TRUE(view.stale);
  node["status"]["conditions"][0]["lastHeartbeatTime"] = "yesterday";
  EXPECT_EQ(ReadFabricCondition(node, t0, 300).status, "Unknown");
  EXPECT_EQ(ReadFabricCondition(json::object(), t0, 300).status, "Unknown");
  EXPECT_EQ(ReadFabricCondition(json::object(), t0, 300).reason, "");
  std::time_t t = 0;
  EXPECT_TRUE(ParseUtcTime("2026-11-28T03:00:00.123456Z", &t));
  EXPECT_EQ(t, t0);
  EXPECT_FALSE(ParseUtcTime("2026-11-28T03:00:00+01:00", &t));
  EXPECT_FALSE(ParseUtcTime("2026-13-28T03:00:00Z", &t));
}

// A one-Node API server: GET returns it; PATCH of its status merges the condition by type and
// checks the resourceVersion; POST of an event is recorded.
class OneNodeApi {
 public:
  explicit OneNodeApi(const std::string& dir)
      : server_(dir, "t", [this](const RecordedRequest& r) { return Handle(r); }), dir_(dir) {
    node_ = {{"metadata", {{"name", "gpu-1"}, {"resourceVersion", "1"}}},
             {"status", {{"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
  }
  KubeClient Client() const {
    ApiEndpoint endpoint;
    std::string error;
    const int port = server_.port();
    const auto env = [port](const std::string& name) -> std::optional<std::string> {
      if (name == "KUBERNETES_SERVICE_HOST") return "127.0.0.1";
      if (name == "KUBERNETES_SERVICE_PORT") return std::to_string(port);
      return std::nullopt;
    };
    EXPECT_TRUE(InClusterEndpoint(env, dir_, &endpoint, &error)) << error;
    return KubeClient(endpoint, 10);
  }
  json Node() {
    std::lock_guard<std::mutex> lock(mutex_);
    return node_;
  }
  json Condition() { return CurrentCondition(Node()); }
  int Patches() const {
    int n = 0;
    for (const auto& r : server_.requests()) n += r.method == "PATCH";
    return n;
  }
  std::vector<json> Events() const {
    std::vector<json> out;
    for (const auto& r : server_.requests())
      if (r.method == "POST") out.push_back(json::parse(r.body));
    return out;
  }
  const FakeApiServer& server() const { return server_; }

 private:
  CannedResponse Handle(const RecordedRequest& r) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (r.method == "GET" && r.target == "/api/v1/nodes/gpu-1") return {200, node_.dump()};
    if (r.method == "POST" && r.target == "/api/v1/namespaces/health/events") return {201, "{}"};
    if (r.method != "PATCH" || r.target != "/api/v1/nodes/gpu-1/status" ||
        r.content_type != "application/strategic-merge-patch+json")
      return {404, R"({"kind":"Status","message":"not found"})"};
    const json patch = json::parse(r.body);
    if (patch["metadata"]["resourceVersion"] != node_["metadata"]["resourceVersion"])
      return {409, R"({"kind":"Status","message":"conflict"})"};
    for (const json& c : patch["status"]["conditions"]) {
      bool merged = false;
      for (json& old : node_["status"]["conditions"])
        if (old["type"] == c["type"]) {
          old = c;
          merged = true;
        }
      if (!merged) node_["status"]["conditions"].push_back(c);
    }
    node_["metadata"]["resourceVersion"] =
        std::to_string(std::stoi(node_["metadata"]["resourceVersion"].get<std::string>()) + 1);
    return {200, node_.dump()};
  }

  std::mutex mutex_;
  json node_;
  FakeApiServer server_;
  std::string dir_;
};

HealthConfig AgentConfig(const std::string& root) {
  HealthConfig config;
  config.mode = RunMode::kLinks;
  config.node_name = "gpu-1";
  config.pod_namespace = "health";
  config.sysfs_root = root;
  config.link_rails = {{"rail0", "mlx5_6"}, {"rail1", "mlx5_7"}};
  config.link_thresholds = kDefaultLinkThresholds;
  config.link_interval_s = 60;
  config.heartbeat_s = 300;
  return config;
}

TEST(LinkAgent, SetsTheConditionNamingTheRailAndClearsItOnRecovery) {
  const std::string root = TempDir(), sa = TempDir();
  FakePort rail0{root, "mlx5_6"}, rail1{root, "mlx5_7"};
  rail0.Set("ACTIVE", 0, 10);
  rail1.Set("ACTIVE", 2, 0);
  OneNodeApi api(sa);
  const KubeClient client = api.Client();
  const HealthConfig config = AgentConfig(root);
  std::ostringstream log;
  LinkAgent agent(config, &client, log);

  EXPECT_TRUE(agent.Pass(0, "2026-11-28T10:00:00Z").empty());
  EXPECT_EQ(api.Condition()["status"], "False");
  EXPECT_EQ(api.Condition()["reason"], "RdmaFabricHasNoIssues");
  EXPECT_EQ(api.Condition()["message"],
            "links: 2 port(s) of 2 rail(s) active, counters within their thresholds");

  // symbol_error +200 within the hour on rail0: over its threshold of 120.
  rail0.Set("ACTIVE", 0, 210);
  EXPECT_EQ(agent.Pass(60, "2026-11-28T10:01:00Z").size(), 1u);
  json c = api.Condition();
  EXPECT_EQ(c["status"], "True");
  EXPECT_EQ(c["reason"], "RdmaFabricHasIssues");
  EXPECT_EQ(c["message"],
            "links: rail rail0 (mlx5_6 port 1): symbol_error +200 within 1 h (threshold: more "
            "than 120, now 210)");
  EXPECT_EQ(c["lastTransitionTime"], "2026-11-28T10:01:00Z");

  // rail1 goes down as well: both named, the transition time kept.
  rail1.Set("DOWN", 3, 0);
  EXPECT_EQ(agent.Pass(120, "2026-11-28T10:02:00Z").size(), 3u);
  c = api.Condition();
  EXPECT_NE(c["message"].get<std::string>().find(
                "rail rail1 (mlx5_7 port 1): state DOWN (Disabled); rail rail1 (mlx5_7 port 1): "
                "link_downed +1 within 6 h (threshold: any increase, now 3)"),
            std::string::npos)
      << c["message"];
  EXPECT_EQ(c["lastTransitionTime"], "2026-11-28T10:01:00Z");

  // Recovery: the link is up, the symbol errors out of their hour, six hours since the flap.
  rail1.Set("ACTIVE", 3, 0);
  double t = 180;
  for (; t < 3600 + 180; t += 60) agent.Pass(t, "2026-11-28T11:00:00Z");
  EXPECT_EQ(api.Condition()["status"], "True");  // link_downed is held for 6 h
  EXPECT_EQ(api.Condition()["message"],
            "links: rail rail1 (mlx5_7 port 1): link_downed +1 within 6 h (threshold: any "
            "increase, now 3)");
  for (; t <= 120 + 21600 + 60; t += 60) agent.Pass(t, "2026-11-28T16:05:00Z");
  c = api.Condition();
  EXPECT_EQ(c["status"], "False");
  EXPECT_EQ(c["reason"], "RdmaFabricHasNoIssues");
  EXPECT_EQ(c["lastTransitionTime"], "2026-11-28T16:05:00Z");

  // One Event per change of the issues: none; symbol errors; + link down; the link up again
  // (symbol errors and link_downed); link_downed only; none.
  const auto events = api.Events();
  ASSERT_EQ(events.size(), 6u);
  EXPECT_EQ(events[1]["reason"], "RdmaFabricHasIssues");
  EXPECT_EQ(events[1]["type"], "Warning");
  EXPECT_EQ(events[1]["involvedObject"]["kind"], "Node");
  EXPECT_EQ(events[1]["involvedObject"]["name"], "gpu-1");
  EXPECT_EQ(events[5]["reason"], "RdmaFabricHasNoIssues");
  EXPECT_EQ(events[5]["type"], "Normal");
}

TEST(LinkAgent, RepostsBeforeTheHeartbeatPassesAndKeepsTheNightsPart) {
  const std::string root = TempDir(), sa = TempDir();
  FakePort{root, "mlx5_6"}.Set("ACTIVE", 0, 0);
  FakePort{root, "mlx5_7"}.Set("ACTIVE", 0, 0);
  OneNodeApi api(sa);
  const KubeClient client = api.Client();
  // The night found a slow rail; the agent sees none of its own.
  ASSERT_EQ(WriteCondition(client, "gpu-1",
                           {"night", "rail rail1: 12 GB/s vs >= 45 (peer gpu-2)",
                            "2026-11-28T03:17:00Z", "passed"}),
            "");
  const HealthConfig config = AgentConfig(root);
  std::ostringstream log;
  LinkAgent agent(config, &client, log);
  agent.Pass(0, "2026-11-28T10:00:00Z");
  EXPECT_EQ(api.Patches(), 2);
  for (int i = 1; i <= 10; ++i) agent.Pass(60 * i, "2026-11-28T10:10:00Z");
  // Posted at 0, 240, 480 (each before 300 s pass at the next read): never stale to a reader.
  EXPECT_EQ(api.Patches(), 4);
  const json c = api.Condition();
  EXPECT_EQ(c["status"], "True");
  EXPECT_EQ(c["message"], "night: rail rail1: 12 GB/s vs >= 45 (peer gpu-2)");
  EXPECT_EQ(c["lastHeartbeatTime"], "2026-11-28T10:10:00Z");
  std::time_t beat = 0;
  ASSERT_TRUE(ParseUtcTime("2026-11-28T10:10:00Z", &beat));
  EXPECT_EQ(ReadFabricCondition(api.Node(), beat + 240, config.heartbeat_s).status, "True");
  // The agent stops (its pod is gone): past the heartbeat a reader sees Unknown, never False.
  EXPECT_EQ(ReadFabricCondition(api.Node(), beat + 301, config.heartbeat_s).status, "Unknown");
  EXPECT_EQ(ReadFabricCondition(api.Node(), beat + 301, config.heartbeat_s).reason,
            "RdmaFabricCheckStale");
}

TEST(LinkAgent, AForbiddenWriteIsReportedAndTriedAgain) {
  const std::string root = TempDir(), sa = TempDir();
  FakePort{root, "mlx5_6"}.Set("ACTIVE", 0, 0);
  FakeApiServer server(sa, "t", [](const RecordedRequest& r) {
    if (r.method == "GET")
      return CannedResponse{200, R"({"metadata":{"name":"gpu-1","resourceVersion":"1"}})"};
    return CannedResponse{403, R"({"kind":"Status","message":"denied by the fence"})"};
  });
  ApiEndpoint endpoint;
  std::string error;
  const int port = server.port();
  ASSERT_TRUE(InClusterEndpoint(
      [port](const std::string& name) -> std::optional<std::string> {
        if (name == "KUBERNETES_SERVICE_HOST") return "127.0.0.1";
        if (name == "KUBERNETES_SERVICE_PORT") return std::to_string(port);
        return std::nullopt;
      },
      sa, &endpoint, &error));
  const KubeClient client(endpoint, 10);
  HealthConfig config = AgentConfig(root);
  config.link_rails = {{"rail0", "mlx5_6"}};
  std::ostringstream log;
  LinkAgent agent(config, &client, log);
  agent.Pass(0, "T");
  EXPECT_TRUE(agent.write_failed());
  EXPECT_NE(log.str().find("condition not written (trying again next pass): PATCH "
                           "/api/v1/nodes/gpu-1/status: HTTP 403: denied by the fence (the "
                           "ClusterRole must allow get on nodes and patch on nodes/status)"),
            std::string::npos)
      << log.str();
  agent.Pass(60, "T");
  int patches = 0;
  for (const auto& r : server.requests()) patches += r.method == "PATCH";
  EXPECT_EQ(patches, 2);
}

TEST(LinksProgram, OncePrintsTheIssuesAndWritesNothing) {
  const std::string root = TempDir();
  FakePort{root, "mlx5_0"}.Set("ACTIVE", 0, 0);
  FakePort{root, "mlx5_1"}.Set("DOWN", 0, 0);
  const std::string out = TempDir() + "/out.txt";
  const std::string command = "env -i HKIM_HEALTH_SYSFS=" + root + " " HKIM_HEALTH_BIN +
                              " links --once --service-account-dir /nonexistent > " + out + " 2>&1";
  const int status = std::system(command.c_str());
  std::ifstream file(out);
  std::stringstream text;
  text << file.rdbuf();
  EXPECT_EQ(WEXITSTATUS(status), 1) << text.str();
  EXPECT_NE(text.str().find("hkim-health: links: rail mlx5_0 (mlx5_0 port 1): ACTIVE (LinkUp), "
                            "link_downed 0, rnr_nak_retry_err 0, symbol_error 0; 5 counters read"),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("rail mlx5_1 (mlx5_1 port 1): state DOWN (Disabled)\n"),
            std::string::npos)
      << text.str();
  // With a token and an API server at hand, one pass still only reads and prints.
  const std::string sa = TempDir();
  FakeApiServer server(sa, "t", [](const RecordedRequest&) { return CannedResponse{200, "{}"}; });
  const int with_api = std::system(
      ("env -i KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT=" +
       std::to_string(server.port()) + " HKIM_NODE_NAME=gpu-1 HKIM_HEALTH_SYSFS=" + root + " " +
       HKIM_HEALTH_BIN + " links --once --service-account-dir " + sa + " > /dev/null 2>&1")
          .c_str());
  EXPECT_EQ(WEXITSTATUS(with_api), 1);
  EXPECT_TRUE(server.requests().empty());
  const std::string empty = TempDir();
  const int none = std::system(("env -i HKIM_HEALTH_SYSFS=" + empty + " " HKIM_HEALTH_BIN +
                                " links --once > /dev/null 2>&1").c_str());
  EXPECT_EQ(WEXITSTATUS(none), 2);
}

}  // namespace
}  // namespace hkim::health

// The node-marking path against a local HTTPS stand-in for the API server (127.0.0.1 only):
// TLS with the service account's CA, the bearer token, the recorded requests and patches.

#include "node_api.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "fake_api_server.h"

namespace hkim::health {
namespace {

using nlohmann::json;
using testing::CannedResponse;
using testing::FakeApiServer;
using testing::RecordedRequest;

std::string TempDir() {
  std::string pattern = ::testing::TempDir() + "hkim-health-api.XXXXXX";
  return ::mkdtemp(pattern.data());
}

const json kNode = {{"metadata", {{"name", "gpu-1"}, {"resourceVersion", "7"}}},
                    {"spec", json::object()},
                    {"status", {{"capacity", {{"nvidia.com/gpu", "8"}}}}}};

KubeClient Client(const std::string& dir, int port) {
  ApiEndpoint endpoint;
  std::string error;
  const auto env = [port](const std::string& name) -> std::optional<std::string> {
    if (name == "KUBERNETES_SERVICE_HOST") return "127.0.0.1";
    if (name == "KUBERNETES_SERVICE_PORT") return std::to_string(port);
    return std::nullopt;
  };
  EXPECT_TRUE(InClusterEndpoint(env, dir, &endpoint, &error)) << error;
  return KubeClient(endpoint, 10);
}

TEST(NodeApi, GetSendsTheTokenOverVerifiedTls) {
  const std::string dir = TempDir();
  FakeApiServer server(dir, "sa-token-1", [](const RecordedRequest&) {
    return CannedResponse{200, kNode.dump()};
  });
  const NodeRead read = GetNode(Client(dir, server.port()), "gpu-1");
  ASSERT_TRUE(read.ok) << read.error;
  EXPECT_EQ(read.node["metadata"]["name"], "gpu-1");
  ASSERT_EQ(server.requests().size(), 1u);
  EXPECT_EQ(server.requests()[0].method, "GET");
  EXPECT_EQ(server.requests()[0].target, "/api/v1/nodes/gpu-1");
  EXPECT_EQ(server.requests()[0].authorization, "Bearer sa-token-1");
}

TEST(NodeApi, WriteMarkPatchesAFreshReadAndRetriesAConflict) {
  const std::string dir = TempDir();
  int patches = 0;
  FakeApiServer server(dir, "t", [&](const RecordedRequest& request) {
    if (request.method == "GET") return CannedResponse{200, kNode.dump()};
    return ++patches == 1 ? CannedResponse{409, R"({"kind":"Status","message":"conflict"})"}
                          : CannedResponse{200, kNode.dump()};
  });
  const std::string error =
      WriteMark(Client(dir, server.port()), "gpu-1", {false, "per-rail: mlx5_1 down", "T", true});
  EXPECT_EQ(error, "");
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 4u);  // GET, PATCH (409), GET, PATCH
  EXPECT_EQ(requests[3].method, "PATCH");
  EXPECT_EQ(requests[3].content_type, "application/merge-patch+json");
  const json body = json::parse(requests[3].body);
  EXPECT_EQ(body["metadata"]["resourceVersion"], "7");
  EXPECT_EQ(body["metadata"]["labels"]["hkimgen.io/nccl-health"], "fail");
  EXPECT_EQ(body["spec"]["taints"][0]["key"], "hkimgen.io/nccl-health");
}

TEST(NodeApi, ForbiddenNamesTheMissingRight) {
  const std::string dir = TempDir();
  FakeApiServer server(dir, "t", [](const RecordedRequest&) {
    return CannedResponse{403, R"({"kind":"Status","message":"nodes \"gpu-1\" is forbidden"})"};
  });
  const NodeRead read = GetNode(Client(dir, server.port()), "gpu-1");
  EXPECT_FALSE(read.ok);
  EXPECT_EQ(read.error,
            "GET /api/v1/nodes/gpu-1: HTTP 403: nodes \"gpu-1\" is forbidden (the ClusterRole "
            "must allow get, list, patch on nodes)");
}

TEST(NodeApi, ListUsesTheLabelSelector) {
  const std::string dir = TempDir();
  FakeApiServer server(dir, "t", [](const RecordedRequest&) {
    return CannedResponse{200, json{{"kind", "NodeList"}, {"items", json::array({kNode})}}.dump()};
  });
  std::vector<json> nodes;
  std::string error;
  ASSERT_TRUE(ListNodes(Client(dir, server.port()), "a.b/c=d e", &nodes, &error)) << error;
  EXPECT_EQ(nodes.size(), 1u);
  EXPECT_EQ(server.requests()[0].target, "/api/v1/nodes?labelSelector=a.b/c%3Dd%20e");
}

TEST(NodeApi, AServerWithAnotherCaIsRefused) {
  const std::string dir = TempDir(), other = TempDir();
  FakeApiServer server(dir, "t", [](const RecordedRequest&) { return CannedResponse{200, "{}"}; });
  FakeApiServer stranger(other, "t", [](const RecordedRequest&) { return CannedResponse{200, "{}"}; });
  // The client trusts `other`'s CA but talks to `server`: the handshake must fail.
  std::filesystem::copy_file(other + "/ca.crt", dir + "/ca.crt",
                             std::filesystem::copy_options::overwrite_existing);
  const NodeRead read = GetNode(Client(dir, server.port()), "gpu-1");
  EXPECT_FALSE(read.ok);
  EXPECT_NE(read.error.find("TLS handshake"), std::string::npos) << read.error;
  EXPECT_TRUE(server.requests().empty());
}

TEST(NodeApi, NoApiServerIsAnErrorNotAHang) {
  const std::string dir = TempDir();
  int port = 0;
  { FakeApiServer gone(dir, "t", [](const RecordedRequest&) { return CannedResponse{}; });
    port = gone.port(); }
  const NodeRead read = GetNode(Client(dir, port), "gpu-1");
  EXPECT_FALSE(read.ok);
  EXPECT_NE(read.error.find("connecting to 127.0.0.1"), std::string::npos) << read.error;
}

}  // namespace
}  // namespace hkim::health

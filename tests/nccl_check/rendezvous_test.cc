#include "rendezvous.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <string>
#include <thread>

namespace hkim::nccl_check {
namespace {

UniqueIdBytes FakeId() {
  UniqueIdBytes id;
  for (std::size_t i = 0; i < id.size(); ++i) id[i] = static_cast<char>(i * 7 + 1);
  return id;
}

RendezvousIdentity Pod(int ordinal, int replicas = 3, int gpus = 8, std::string job = "train") {
  return RendezvousIdentity{std::move(job), ordinal, replicas, gpus};
}

std::future<RendezvousStatus> FetchAsync(RendezvousIdentity self, int port, UniqueIdBytes& id,
                                         double timeout_s = 10) {
  return std::async(std::launch::async, [self, port, &id, timeout_s] {
    return FetchUniqueId(self, "127.0.0.1", port, timeout_s, id);
  });
}

// A TCP listener on 127.0.0.1 that is not an hkim-nccl-check peer.
class RawListener {
 public:
  RawListener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address);
    ::listen(fd_, 8);
    socklen_t length = sizeof address;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
  }
  ~RawListener() { ::close(fd_); }
  int port() const { return port_; }
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

int ConnectRaw(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  return fd;
}

TEST(Rendezvous, EveryPeerReceivesRankZerosId) {
  RendezvousServer server;
  ASSERT_TRUE(server.Listen("127.0.0.1", 0).ok);
  UniqueIdBytes id1{}, id2{};
  auto peer1 = FetchAsync(Pod(1), server.port(), id1);
  auto peer2 = FetchAsync(Pod(2), server.port(), id2);
  const RendezvousStatus served = server.Serve(Pod(0), FakeId(), 10);
  EXPECT_TRUE(served.ok) << served.error;
  EXPECT_TRUE(peer1.get().ok);
  EXPECT_TRUE(peer2.get().ok);
  EXPECT_EQ(id1, FakeId());
  EXPECT_EQ(id2, FakeId());
}

TEST(Rendezvous, PeerRetriesUntilRankZeroListens) {
  int port = 0;
  {
    RawListener probe;  // learn a free port, then free it again
    port = probe.port();
  }
  UniqueIdBytes id{};
  auto peer = FetchAsync(Pod(1, 2), port, id);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  RendezvousServer server;
  ASSERT_TRUE(server.Listen("127.0.0.1", port).ok);
  EXPECT_TRUE(server.Serve(Pod(0, 2), FakeId(), 10).ok);
  EXPECT_TRUE(peer.get().ok);
  EXPECT_EQ(id, FakeId());
}

TEST(Rendezvous, RankZeroTimesOutNamingTheMissingOrdinals) {
  RendezvousServer server;
  ASSERT_TRUE(server.Listen("127.0.0.1", 0).ok);
  UniqueIdBytes id{};
  auto peer = FetchAsync(Pod(2, 4), server.port(), id);
  const RendezvousStatus served = server.Serve(Pod(0, 4), FakeId(), 2);
  EXPECT_FALSE(served.ok);
  EXPECT_EQ(served.error, "timed out after 2 s on port " + std::to_string(server.port()) +
                              ": ordinal(s) 1, 3 of 4 ('train') never fetched the NCCL unique id");
  EXPECT_NE(served.fix.find("HKIM_RENDEZVOUS_PORT"), std::string::npos);
  EXPECT_TRUE(peer.get().ok);
}

TEST(Rendezvous, PeerTimesOutWithTheLastError) {
  int port = 0;
  {
    RawListener probe;
    port = probe.port();
  }
  UniqueIdBytes id{};
  const RendezvousStatus fetched = FetchUniqueId(Pod(1), "127.0.0.1", port, 0.5, id);
  EXPECT_FALSE(fetched.ok);
  EXPECT_EQ(fetched.error, "timed out after 0.5 s waiting for rank 0 at 127.0.0.1:" +
                               std::to_string(port) + " (last error: connect: Connection refused)");
}

TEST(Rendezvous, PeerTimesOutWhenNoNameResolves) {
  UniqueIdBytes id{};
  const RendezvousStatus fetched = FetchUniqueId(Pod(1), "no-such-host.invalid", 29650, 0.3, id);
  EXPECT_FALSE(fetched.ok);
  EXPECT_NE(fetched.error.find("cannot resolve 'no-such-host.invalid'"), std::string::npos)
      << fetched.error;
}

TEST(Rendezvous, PeerRejectsAForeignServer) {
  RawListener http;
  std::thread server([&http] {
    const int fd = ::accept(http.fd(), nullptr, nullptr);
    const std::string answer = "HTTP/1.1 400 Bad Request\r\n\r\n";
    ::send(fd, answer.data(), answer.size(), MSG_NOSIGNAL);
    ::close(fd);
  });
  UniqueIdBytes id{};
  const RendezvousStatus fetched = FetchUniqueId(Pod(1), "127.0.0.1", http.port(), 5, id);
  server.join();
  EXPECT_FALSE(fetched.ok);
  EXPECT_EQ(fetched.error, "127.0.0.1:" + std::to_string(http.port()) +
                               " answered, but not as hkim-nccl-check rank 0 (it sent 'HTTP/1.1')");
}

TEST(Rendezvous, RankZeroIgnoresAForeignClientAndServesTheRealOne) {
  RendezvousServer server;
  ASSERT_TRUE(server.Listen("127.0.0.1", 0).ok);
  const int foreign = ConnectRaw(server.port());
  const std::string request = "GET / HTTP/1.1\r\n\r\n";
  ::send(foreign, request.data(), request.size(), MSG_NOSIGNAL);
  UniqueIdBytes id{};
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto peer = FetchAsync(Pod(1, 2), server.port(), id);
  const RendezvousStatus served = server.Serve(Pod(0, 2), FakeId(), 10);
  ::close(foreign);
  EXPECT_TRUE(served.ok) << served.error;
  ASSERT_EQ(served.warnings.size(), 1u);
  EXPECT_NE(served.warnings[0].find("is not an hkim-nccl-check peer (it sent 'GET / HT')"),
            std::string::npos)
      << served.warnings[0];
  EXPECT_TRUE(peer.get().ok);
  EXPECT_EQ(id, FakeId());
}

TEST(Rendezvous, MismatchedReplicasAreRefusedOnBothSides) {
  RendezvousServer server;
  ASSERT_TRUE(server.Listen("127.0.0.1", 0).ok);
  UniqueIdBytes id{};
  auto peer = FetchAsync(Pod(1, 4), server.port(), id);
  const RendezvousStatus served = server.Serve(Pod(0, 2), FakeId(), 10);
  const RendezvousStatus fetched = peer.get();
  EXPECT_FALSE(served.ok);
  EXPECT_FALSE(fetched.ok);
  EXPECT_EQ(fetched.error, "rank 0 at 127.0.0.1:" + std::to_string(server.port()) +
                               " refused this pod (ordinal 1): HKIM_REPLICAS=4 there but 2 at "
                               "rank 0");
  EXPECT_NE(served.error.find("(ordinal 1): HKIM_REPLICAS=4 there but 2 at rank 0"),
            std::string::npos)
      << served.error;
}

TEST(Rendezvous, DifferentGpuCountsAndJobsAreRefused) {
  for (const RendezvousIdentity& peer_identity : {Pod(1, 2, 4), Pod(1, 2, 8, "other")}) {
    RendezvousServer server;
    ASSERT_TRUE(server.Listen("127.0.0.1", 0).ok);
    UniqueIdBytes id{};
    auto peer = FetchAsync(peer_identity, server.port(), id);
    EXPECT_FALSE(server.Serve(Pod(0, 2, 8), FakeId(), 10).ok);
    EXPECT_FALSE(peer.get().ok);
  }
}

TEST(Rendezvous, AForeignClientIsToldApartAtItsFirstByteNotAfterATimeout) {
  RendezvousServer server;
  ASSERT_TRUE(server.Listen("127.0.0.1", 0).ok);
  const int foreign = ConnectRaw(server.port());
  ::send(foreign, "G", 1, MSG_NOSIGNAL);  // then silence, connection kept open
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  UniqueIdBytes id{};
  auto peer = FetchAsync(Pod(1, 2), server.port(), id);
  // Shorter than the 5 s a connection may take: waiting for 8 bytes of magic would time out.
  const RendezvousStatus served = server.Serve(Pod(0, 2), FakeId(), 3);
  ::close(foreign);
  EXPECT_TRUE(served.ok) << served.error;
  ASSERT_EQ(served.warnings.size(), 1u);
  EXPECT_NE(served.warnings[0].find("(it sent 'G')"), std::string::npos) << served.warnings[0];
  EXPECT_TRUE(peer.get().ok);
}

TEST(Rendezvous, APeersJobWithRawBytesIsRefusedPrintably) {
  RendezvousServer server;
  ASSERT_TRUE(server.Listen("127.0.0.1", 0).ok);
  UniqueIdBytes id{};
  auto peer = FetchAsync(Pod(1, 2, 8, std::string("tr\x1b[2J\xff", 7)), server.port(), id);
  const RendezvousStatus served = server.Serve(Pod(0, 2, 8), FakeId(), 10);
  const RendezvousStatus fetched = peer.get();
  EXPECT_FALSE(served.ok);
  EXPECT_NE(served.error.find("job 'tr.[2J.' is not rank 0's job 'train'"), std::string::npos)
      << served.error;
  EXPECT_NE(fetched.error.find("job 'tr.[2J.'"), std::string::npos) << fetched.error;
}

TEST(Rendezvous, TheSameOrdinalAskingAgainGetsTheSameId) {
  RendezvousServer server;
  ASSERT_TRUE(server.Listen("127.0.0.1", 0).ok);
  UniqueIdBytes first{}, second{}, third{};
  const int port = server.port();
  auto serving =
      std::async(std::launch::async, [&server] { return server.Serve(Pod(0, 3), FakeId(), 10); });
  EXPECT_TRUE(FetchUniqueId(Pod(1, 3), "127.0.0.1", port, 10, first).ok);
  EXPECT_TRUE(FetchUniqueId(Pod(1, 3), "127.0.0.1", port, 10, second).ok);
  EXPECT_EQ(second, FakeId());
  EXPECT_TRUE(FetchUniqueId(Pod(2, 3), "127.0.0.1", port, 10, third).ok);
  EXPECT_TRUE(serving.get().ok);
}

// Two connections that never speak (a port scanner, a stuck peer) are open before the real
// peer arrives: the peer is served at once, well within its own 3 s, and rank 0 succeeds.
TEST(Rendezvous, APeerIsServedBehindTwoIdleConnections) {
  RendezvousServer server;
  ASSERT_TRUE(server.Listen("127.0.0.1", 0).ok);
  const int port = server.port();
  auto serving =
      std::async(std::launch::async, [&server] { return server.Serve(Pod(0, 2), FakeId(), 20); });
  const int idle1 = ConnectRaw(port), idle2 = ConnectRaw(port);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // rank 0 accepted both
  UniqueIdBytes id{};
  const auto start = std::chrono::steady_clock::now();
  const RendezvousStatus fetched = FetchUniqueId(Pod(1, 2), "127.0.0.1", port, 3, id);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(fetched.ok) << fetched.error;
  EXPECT_EQ(id, FakeId());
  EXPECT_LT(seconds, 2.0);
  const RendezvousStatus served = serving.get();
  EXPECT_TRUE(served.ok) << served.error;
  ::close(idle1);
  ::close(idle2);
}

// A peer that sent its hello, got the answer and went away without confirming it (it timed out
// and will retry): its hello again is answered, and rank 0 succeeds only then.
TEST(Rendezvous, AReSentHelloIsAnswered) {
  RendezvousServer server;
  ASSERT_TRUE(server.Listen("127.0.0.1", 0).ok);
  const int port = server.port();
  auto serving =
      std::async(std::launch::async, [&server] { return server.Serve(Pod(0, 2), FakeId(), 20); });
  const int lost = ConnectRaw(port);
  const std::string hello = EncodeHello(Pod(1, 2));
  ASSERT_EQ(::send(lost, hello.data(), hello.size(), 0), static_cast<ssize_t>(hello.size()));
  char answer[kAnswerHeaderBytes + kUniqueIdBytes];
  ASSERT_EQ(::recv(lost, answer, sizeof answer, MSG_WAITALL), static_cast<ssize_t>(sizeof answer));
  ::close(lost);  // no ack
  EXPECT_EQ(serving.wait_for(std::chrono::milliseconds(300)), std::future_status::timeout)
      << "rank 0 must not report success before the peer confirmed the id";
  UniqueIdBytes id{};
  const RendezvousStatus again = FetchUniqueId(Pod(1, 2), "127.0.0.1", port, 5, id);
  EXPECT_TRUE(again.ok) << again.error;
  EXPECT_EQ(id, FakeId());
  EXPECT_TRUE(serving.get().ok);
}

// The peer's hello arrived but it never took the id (it hangs): rank 0 times out naming it
// instead of reporting success and waiting in NCCL's init for a rank that cannot come.
TEST(Rendezvous, RankZeroDoesNotReportSuccessWhileAPeerNeverGotTheId) {
  RendezvousServer server;
  ASSERT_TRUE(server.Listen("127.0.0.1", 0).ok);
  const int port = server.port();
  auto serving =
      std::async(std::launch::async, [&server] { return server.Serve(Pod(0, 2), FakeId(), 2); });
  const int stuck = ConnectRaw(port);
  const std::string hello = EncodeHello(Pod(1, 2));
  ASSERT_EQ(::send(stuck, hello.data(), hello.size(), 0), static_cast<ssize_t>(hello.size()));
  const RendezvousStatus served = serving.get();
  EXPECT_FALSE(served.ok);
  EXPECT_NE(served.error.find("ordinal(s) 1 of 2 ('train') never fetched the NCCL unique id"),
            std::string::npos)
      << served.error;
  ::close(stuck);
}

TEST(Rendezvous, ListenReportsABusyPort) {
  RawListener busy;
  RendezvousServer server;
  const RendezvousStatus status = server.Listen("127.0.0.1", busy.port());
  EXPECT_FALSE(status.ok);
  EXPECT_EQ(status.error, "cannot listen on port " + std::to_string(busy.port()) +
                              " for the rendezvous: Address already in use");
}

}  // namespace
}  // namespace hkim::nccl_check

#include "transport_log.h"

#include <gtest/gtest.h>

namespace hkim::nccl_check {
namespace {

// Lines in the shape NCCL 2.2x writes them (host:pid:tid [dev] NCCL INFO ...).
constexpr const char* kRdmaLog = R"(node-a:5666:5808 [0] NCCL INFO NCCL version 2.28.9+cuda13.0
node-a:5666:5808 [0] NCCL INFO NET/Plugin: Could not find: libnccl-net.so.
node-a:5666:5808 [0] NCCL INFO NET/IB : Using [0]mlx5_6:1/RoCE [1]mlx5_7:1/RoCE [RO]; OOB eth0:10.0.0.1<0>
node-a:5666:5808 [0] NCCL INFO Using network IB
node-a:5666:5808 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 2, bw 40.000000/40.000000, type NVL/PIX, sameChannels 1
node-a:5666:5808 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read
node-a:5666:5808 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] via P2P/CUMEM/read
node-a:5666:5808 [0] NCCL INFO Channel 00/0 : 2[0] -> 0[0] [receive] via NET/IB/0/GDRDMA
node-a:5666:5808 [0] NCCL INFO Channel 00/0 : 0[0] -> 2[0] [send] via NET/IB/0/GDRDMA
)";

TEST(ParseNcclLog, ReadsConnectionsDevicesAndVersion) {
  const TransportReport report = ParseNcclLog(kRdmaLog);
  ASSERT_EQ(report.connections.size(), 4u);
  EXPECT_EQ(report.connections[2].channel, 0);
  EXPECT_EQ(report.connections[2].from_rank, 2);
  EXPECT_EQ(report.connections[2].to_rank, 0);
  EXPECT_EQ(report.connections[2].via, "NET/IB/0/GDRDMA");
  EXPECT_EQ(report.connections[2].transport, Transport::kNetIb);
  EXPECT_EQ(report.connections[0].transport, Transport::kP2P);
  EXPECT_EQ(report.via_counts.at("P2P/CUMEM/read"), 2);
  EXPECT_EQ(report.via_counts.at("NET/IB/0/GDRDMA"), 2);
  EXPECT_TRUE(report.Uses(Transport::kNetIb));
  EXPECT_FALSE(report.Uses(Transport::kNetSocket));
  EXPECT_EQ(report.network, "IB");
  EXPECT_EQ(report.ib_devices, (std::vector<std::string>{"mlx5_6:1/RoCE", "mlx5_7:1/RoCE"}));
  EXPECT_EQ(report.nccl_version, "2.28.9+cuda13.0");
  EXPECT_EQ(report.graph_link_types, (std::vector<std::string>{"NVL/PIX"}));
  EXPECT_TRUE(report.IntraNodeNvlink());
  EXPECT_EQ(report.Summary(),
            "NET/IB/0/GDRDMA x2, P2P/CUMEM/read x2 (NVLink) [mlx5_6:1/RoCE mlx5_7:1/RoCE]");
}

TEST(ParseNcclLog, CatchesASilentFallbackToSockets) {
  const TransportReport report = ParseNcclLog(
      "h:1:2 [0] NCCL INFO NET/Socket : Using [0]eth0:10.128.0.12<0>\n"
      "h:1:2 [0] NCCL INFO Using network Socket\n"
      "h:1:2 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/Socket/0\n"
      "h:1:2 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n");
  EXPECT_TRUE(report.Uses(Transport::kNetSocket));
  EXPECT_FALSE(report.Uses(Transport::kNetIb));
  EXPECT_EQ(report.network, "Socket");
  EXPECT_EQ(report.socket_devices, (std::vector<std::string>{"eth0:10.128.0.12<0>"}));
  EXPECT_EQ(report.Summary(), "NET/Socket/0 x2 [eth0:10.128.0.12<0>]");
}

TEST(ParseNcclLog, TellsPcieP2pAndSharedMemoryApart) {
  const TransportReport report = ParseNcclLog(
      "h:1:2 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 1, bw 12.000000/12.000000, type "
      "PIX/PIX, sameChannels 1\n"
      "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n"
      "h:1:2 [1] NCCL INFO Channel 00/0 : 1[1] -> 2[2] via SHM/direct/direct\n");
  EXPECT_TRUE(report.Uses(Transport::kP2P));
  EXPECT_TRUE(report.Uses(Transport::kShm));
  EXPECT_FALSE(report.IntraNodeNvlink());
  EXPECT_EQ(report.Summary(), "P2P/IPC x1, SHM/direct/direct x1 (PCIe)");
}

TEST(ParseNcclLog, KeepsWarningsAndIgnoresOtherLines) {
  const TransportReport report = ParseNcclLog(
      "h:1:2 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0.2<5> with status=12\n"
      "h:1:2 [0] NCCL INFO Channel garbage via\n"
      "h:1:2 [0] NCCL INFO comm 0x1 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0\n"
      "not an NCCL line\n");
  EXPECT_TRUE(report.connections.empty());
  ASSERT_EQ(report.warnings.size(), 1u);
  EXPECT_EQ(report.warnings[0], "NET/IB : Got completion from peer 10.0.0.2<5> with status=12");
  EXPECT_EQ(report.Summary(), "none seen");
}

// NCCL 2.28 on a machine without IB devices (seen on the 2x H200 machine): the IB line lists only
// the relaxed-ordering flag, and the network devices are not shown for a P2P-only communicator.
TEST(ParseNcclLog, ListsNoDeviceForAnEmptyIbLineAndHidesUnusedNetworks) {
  const TransportReport report = ParseNcclLog(
      "vm:1012:1024 [1] NCCL INFO NET/IB : No device found.\n"
      "vm:1012:1024 [1] NCCL INFO NET/IB : Using [RO]; OOB eth0:192.0.2.2<0>\n"
      "vm:1012:1024 [1] NCCL INFO NET/Socket : Using [0]eth0:192.0.2.2<0>\n"
      "vm:1012:1024 [1] NCCL INFO Using network Socket\n"
      "vm:1012:1024 [1] NCCL INFO Pattern 4, crossNic 0, nChannels 12, bw 30.000000/30.000000, "
      "type NVL/PIX, sameChannels 1\n"
      "vm:1012:1024 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2P/direct pointer\n");
  EXPECT_TRUE(report.ib_devices.empty());
  EXPECT_EQ(report.socket_devices, (std::vector<std::string>{"eth0:192.0.2.2<0>"}));
  EXPECT_EQ(report.network, "Socket");
  EXPECT_EQ(report.Summary(), "P2P/direct pointer x1 (NVLink)");
}

TEST(ClassifyVia, NamesEveryTransportClass) {
  EXPECT_EQ(ClassifyVia("P2P/direct pointer"), Transport::kP2P);
  EXPECT_EQ(ClassifyVia("NET/IB/3/GDRDMA"), Transport::kNetIb);
  EXPECT_EQ(ClassifyVia("NET/Socket/1"), Transport::kNetSocket);
  EXPECT_EQ(ClassifyVia("NET/AWS Libfabric/0/GDRDMA"), Transport::kNetOther);
  EXPECT_EQ(ClassifyVia("SHM/direct/direct"), Transport::kShm);
  EXPECT_EQ(ClassifyVia("COLLNET"), Transport::kCollNet);
  EXPECT_EQ(ClassifyVia("???"), Transport::kUnknown);
  EXPECT_EQ(TransportName(Transport::kNetIb), "NET/IB");
}

}  // namespace
}  // namespace hkim::nccl_check

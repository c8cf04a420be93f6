#pragma once
// Reads NCCL's own debug output (NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH) to find the
// transport NCCL actually used, so that a silent fallback to TCP is caught even when the bandwidth
// looks plausible. Lines it understands (prefix "host:pid:tid [dev] NCCL INFO " omitted):
//   Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read
//   Channel 07/0 : 0[0] -> 2[0] [receive] via NET/IB/3/GDRDMA
//   Channel 00/0 : 1[1] -> 0[0] [send] via NET/Socket/0
//   Channel 01/0 : 0[0] -> 1[1] via SHM/direct/direct
//   NET/IB : Using [0]mlx5_6:1/RoCE [1]mlx5_7:1/RoCE [RO]; OOB eth0:10.0.0.1<0>
//   NET/IB : Using [RO]; OOB eth0:192.0.2.2<0>        (no IB device: no device listed)
//   NET/Socket : Using [0]eth0:10.0.0.1<0>
//   Using network IB
//   Pattern 4, crossNic 0, nChannels 16, bw 40.000000/40.000000, type NVL/PIX, sameChannels 1
//   NCCL version 2.28.9+cuda13.0

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace hkim::nccl_check {

/// Transport classes a connection can use; the names are those of the profile's
/// `HKIM_NCCL_CHECK_TRANSPORT` where one exists.
enum class Transport { kP2P, kShm, kNetIb, kNetSocket, kNetOther, kCollNet, kNvls, kUnknown };

/// "P2P", "SHM", "NET/IB", "NET/Socket", "NET/other", "CollNet", "NVLS", "unknown".
std::string_view TransportName(Transport transport);

/// One "Channel .. via .." connection line.
struct Connection {
  int channel = -1;
  int from_rank = -1;
  int to_rank = -1;
  Transport transport = Transport::kUnknown;
  std::string via;  ///< the text after "via ", e.g. "NET/IB/3/GDRDMA", "P2P/CUMEM/read"
};

/// What NCCL's log says about the transports of one communicator set.
struct TransportReport {
  std::vector<Connection> connections;        ///< in log order
  std::map<std::string, int> via_counts;      ///< "NET/IB/3/GDRDMA" -> count (sorted)
  std::map<Transport, int> transport_counts;  ///< class -> count
  std::string network;                        ///< "IB", "Socket", ... from "Using network X"
  std::vector<std::string> ib_devices;        ///< "mlx5_6:1/RoCE" from "NET/IB : Using [0].."
  std::vector<std::string> socket_devices;    ///< "eth0:10.0.0.1<0>" from "NET/Socket : Using"
  std::vector<std::string> graph_link_types;  ///< "NVL/PIX" from "Pattern .. type X/Y", unique
  std::string nccl_version;                   ///< "2.28.9+cuda13.0" if logged
  std::vector<std::string> warnings;          ///< "NCCL WARN" lines, message part

  /// True when at least one connection used `transport`.
  bool Uses(Transport transport) const;
  /// True when the graph search reported NVLink (type NVL or NVB) for the intra-node links.
  bool IntraNodeNvlink() const;
  /// One-line summary for the table, e.g. "P2P/CUMEM/read x32 (NVLink)", "NET/IB/0/GDRDMA x8
  /// [mlx5_6:1/RoCE]" (devices of a network only when a connection used it) or "none seen".
  std::string Summary() const;
};

/// Classifies the text after "via " ("NET/IB/3/GDRDMA" -> kNetIb, "P2P/IPC" -> kP2P, ...).
Transport ClassifyVia(std::string_view via);

/// Parses NCCL's debug output (any number of lines; lines it does not know are ignored).
TransportReport ParseNcclLog(std::string_view log);

}  // namespace hkim::nccl_check

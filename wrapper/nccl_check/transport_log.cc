#include "transport_log.h"

#include <algorithm>
#include <charconv>
#include <sstream>

namespace hkim::nccl_check {
namespace {

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// Reads a decimal integer at the front of `text` and advances past it.
bool TakeInt(std::string_view& text, int& value) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data()) return false;
  text.remove_prefix(static_cast<std::size_t>(end - text.data()));
  return true;
}

bool TakeLiteral(std::string_view& text, std::string_view literal) {
  if (!StartsWith(text, literal)) return false;
  text.remove_prefix(literal.size());
  return true;
}

// "R[D]" -> rank R.
bool TakeRank(std::string_view& text, int& rank) {
  int device = 0;
  return TakeInt(text, rank) && TakeLiteral(text, "[") && TakeInt(text, device) &&
         TakeLiteral(text, "]");
}

// "00/0 : 0[0] -> 1[1] [send] via P2P/CUMEM/read"
bool ParseChannel(std::string_view rest, Connection& connection) {
  int connection_index = 0;
  if (!TakeInt(rest, connection.channel) || !TakeLiteral(rest, "/") ||
      !TakeInt(rest, connection_index) || !TakeLiteral(rest, " : ") ||
      !TakeRank(rest, connection.from_rank) || !TakeLiteral(rest, " -> ") ||
      !TakeRank(rest, connection.to_rank)) {
    return false;
  }
  const std::size_t via = rest.find(" via ");
  if (via == std::string_view::npos) return false;
  connection.via = std::string(Trim(rest.substr(via + 5)));
  connection.transport = ClassifyVia(connection.via);
  return !connection.via.empty();
}

// "[0]mlx5_6:1/RoCE [1]mlx5_7:1/RoCE [RO]; OOB eth0:..." -> {"mlx5_6:1/RoCE", "mlx5_7:1/RoCE"}:
// devices are the words "[N]name" before the first ';' (flags such as "[RO]" are not devices).
std::vector<std::string> ParseNetDevices(std::string_view rest) {
  std::vector<std::string> devices;
  rest = rest.substr(0, rest.find(';'));
  std::istringstream words{std::string(rest)};
  std::string word;
  while (words >> word) {
    const std::size_t close = word.find(']');
    if (word.front() != '[' || close == std::string::npos || close < 2 ||
        close + 1 >= word.size()) {
      continue;
    }
    const std::string index = word.substr(1, close - 1);
    if (std::all_of(index.begin(), index.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      devices.push_back(word.substr(close + 1));
    }
  }
  return devices;
}

void AddUnique(std::vector<std::string>& list, std::vector<std::string> items) {
  for (std::string& item : items) {
    if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(std::move(item));
  }
}

std::string Bracketed(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? " [" : " ") + item;
  return out.empty() ? out : out + "]";
}

}  // namespace

std::string_view TransportName(Transport transport) {
  switch (transport) {
    case Transport::kP2P:
      return "P2P";
    case Transport::kShm:
      return "SHM";
    case Transport::kNetIb:
      return "NET/IB";
    case Transport::kNetSocket:
      return "NET/Socket";
    case Transport::kNetOther:
      return "NET/other";
    case Transport::kCollNet:
      return "CollNet";
    case Transport::kNvls:
      return "NVLS";
    case Transport::kUnknown:
      break;
  }
  return "unknown";
}

Transport ClassifyVia(std::string_view via) {
  if (StartsWith(via, "P2P")) return Transport::kP2P;
  if (StartsWith(via, "SHM")) return Transport::kShm;
  if (StartsWith(via, "NET/IB")) return Transport::kNetIb;
  if (StartsWith(via, "NET/Socket")) return Transport::kNetSocket;
  if (StartsWith(via, "NET/")) return Transport::kNetOther;
  if (StartsWith(via, "COLLNET") || StartsWith(via, "CollNet")) return Transport::kCollNet;
  if (StartsWith(via, "NVLS")) return Transport::kNvls;
  return Transport::kUnknown;
}

bool TransportReport::Uses(Transport transport) const {
  const auto it = transport_counts.find(transport);
  return it != transport_counts.end() && it->second > 0;
}

bool TransportReport::IntraNodeNvlink() const {
  return std::any_of(graph_link_types.begin(), graph_link_types.end(), [](const std::string& t) {
    return StartsWith(t, "NVL") || StartsWith(t, "NVB");
  });
}

std::string TransportReport::Summary() const {
  if (via_counts.empty()) return "none seen";
  std::string out;
  for (const auto& [via, count] : via_counts) {
    if (!out.empty()) out += ", ";
    out += via + " x" + std::to_string(count);
  }
  if (Uses(Transport::kP2P)) out += IntraNodeNvlink() ? " (NVLink)" : " (PCIe)";
  if (Uses(Transport::kNetIb)) out += Bracketed(ib_devices);
  if (Uses(Transport::kNetSocket)) out += Bracketed(socket_devices);
  return out;
}

TransportReport ParseNcclLog(std::string_view log) {
  TransportReport report;
  while (!log.empty()) {
    const std::size_t end = log.find('\n');
    std::string_view line = log.substr(0, end);
    log = end == std::string_view::npos ? std::string_view() : log.substr(end + 1);

    const std::size_t info = line.find("NCCL INFO ");
    const std::size_t warn = line.find("NCCL WARN ");
    if (warn != std::string_view::npos) {
      report.warnings.emplace_back(Trim(line.substr(warn + 10)));
      continue;
    }
    if (info == std::string_view::npos) continue;
    std::string_view rest = Trim(line.substr(info + 10));

    if (TakeLiteral(rest, "Channel ")) {
      Connection connection;
      if (ParseChannel(rest, connection)) {
        ++report.via_counts[connection.via];
        ++report.transport_counts[connection.transport];
        report.connections.push_back(std::move(connection));
      }
    } else if (TakeLiteral(rest, "NET/IB : Using ")) {
      AddUnique(report.ib_devices, ParseNetDevices(rest));
    } else if (TakeLiteral(rest, "NET/Socket : Using ")) {
      AddUnique(report.socket_devices, ParseNetDevices(rest));
    } else if (TakeLiteral(rest, "Using network ")) {
      report.network = std::string(rest);
    } else if (TakeLiteral(rest, "NCCL version ")) {
      report.nccl_version = std::string(rest);
    } else if (StartsWith(rest, "Pattern ")) {
      const std::size_t type = rest.find(", type ");
      if (type != std::string_view::npos) {
        std::string_view value = rest.substr(type + 7);
        value = value.substr(0, value.find(','));
        const std::string link(Trim(value));
        if (std::find(report.graph_link_types.begin(), report.graph_link_types.end(), link) ==
            report.graph_link_types.end()) {
          report.graph_link_types.push_back(link);
        }
      }
    }
  }
  return report;
}

}  // namespace hkim::nccl_check

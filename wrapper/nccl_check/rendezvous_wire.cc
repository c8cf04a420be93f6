#include "rendezvous_wire.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>

namespace hkim::nccl_check {
namespace {

void PutU32(std::string& out, std::uint32_t value) {
  const std::uint32_t net = htonl(value);
  out.append(reinterpret_cast<const char*>(&net), sizeof net);
}

std::uint32_t GetU32(std::string_view bytes, std::size_t at) {
  std::uint32_t net = 0;
  std::memcpy(&net, bytes.data() + at, sizeof net);
  return ntohl(net);
}

// The magic, or as much of it as has arrived, must open every message.
bool MagicSoFar(std::string_view bytes) {
  const std::size_t n = std::min(bytes.size(), kRendezvousMagic.size());
  return bytes.substr(0, n) == kRendezvousMagic.substr(0, n);
}

WireParse NeedMore(std::size_t total, std::size_t* needed) {
  *needed = total;
  return WireParse::kNeedMore;
}

}  // namespace

std::string EncodeHello(const RendezvousIdentity& self) {
  std::string out(kRendezvousMagic);
  PutU32(out, kRendezvousVersion);
  PutU32(out, static_cast<std::uint32_t>(self.ordinal));
  PutU32(out, static_cast<std::uint32_t>(self.replicas));
  PutU32(out, static_cast<std::uint32_t>(self.local_gpus));
  PutU32(out, static_cast<std::uint32_t>(self.job.size()));
  out += self.job;
  return out;
}

WireParse ParseHello(std::string_view bytes, RendezvousHello* hello, std::size_t* needed) {
  if (!MagicSoFar(bytes)) return WireParse::kForeign;
  if (bytes.size() < kHelloHeaderBytes) return NeedMore(kHelloHeaderBytes, needed);
  const std::uint32_t job_length = GetU32(bytes, 24);
  if (job_length > kMaxRendezvousText) return WireParse::kMalformed;
  if (bytes.size() < kHelloHeaderBytes + job_length)
    return NeedMore(kHelloHeaderBytes + job_length, needed);
  hello->version = GetU32(bytes, 8);
  // Two's complement: an absurd count turns negative and is refused by RefusalOf.
  hello->identity.ordinal = static_cast<int>(GetU32(bytes, 12));
  hello->identity.replicas = static_cast<int>(GetU32(bytes, 16));
  hello->identity.local_gpus = static_cast<int>(GetU32(bytes, 20));
  hello->identity.job = std::string(bytes.substr(kHelloHeaderBytes, job_length));
  return WireParse::kDone;
}

std::string RefusalOf(const RendezvousIdentity& self, const RendezvousHello& hello) {
  const RendezvousIdentity& peer = hello.identity;
  if (hello.version != kRendezvousVersion) {
    return "rendezvous protocol version " + std::to_string(hello.version) + ", rank 0 speaks " +
           std::to_string(kRendezvousVersion);
  }
  if (peer.job != self.job)
    return "job '" + PrintableBytes(peer.job) + "' is not rank 0's job '" + self.job + "'";
  if (peer.replicas != self.replicas) {
    return "HKIM_REPLICAS=" + std::to_string(peer.replicas) + " there but " +
           std::to_string(self.replicas) + " at rank 0";
  }
  if (peer.local_gpus != self.local_gpus) {
    return std::to_string(peer.local_gpus) + " GPUs there but " +
           std::to_string(self.local_gpus) + " at rank 0 (every pod needs the same count)";
  }
  if (peer.ordinal <= 0 || peer.ordinal >= self.replicas) {
    // 64-bit: defined for any count (check_config keeps rank 0's positive; the fuzzer does not).
    return "ordinal " + std::to_string(peer.ordinal) + " is not in 1.." +
           std::to_string(static_cast<long long>(self.replicas) - 1);
  }
  return "";
}

std::string EncodeAccept(const UniqueIdBytes& id) {
  std::string out(kRendezvousMagic);
  PutU32(out, 0);
  out.append(id.data(), id.size());
  return out;
}

std::string EncodeRefusal(const std::string& reason) {
  const std::string text = reason.substr(0, kMaxRendezvousText);
  std::string out(kRendezvousMagic);
  PutU32(out, 1);
  PutU32(out, static_cast<std::uint32_t>(text.size()));
  out += text;
  return out;
}

std::string EncodeAck(int ordinal) {
  std::string out(kRendezvousMagic);
  PutU32(out, static_cast<std::uint32_t>(ordinal));
  return out;
}

WireParse ParseAck(std::string_view bytes, int* ordinal, std::size_t* needed) {
  if (!MagicSoFar(bytes)) return WireParse::kForeign;
  if (bytes.size() < kAckBytes) return NeedMore(kAckBytes, needed);
  *ordinal = static_cast<int>(GetU32(bytes, 8));
  return WireParse::kDone;
}

WireParse ParseAnswer(std::string_view bytes, RendezvousAnswer* answer, std::size_t* needed) {
  if (!MagicSoFar(bytes)) return WireParse::kForeign;
  if (bytes.size() < kAnswerHeaderBytes) return NeedMore(kAnswerHeaderBytes, needed);
  const std::uint32_t status = GetU32(bytes, 8);
  if (status == 0) {
    if (bytes.size() < kAnswerHeaderBytes + kUniqueIdBytes)
      return NeedMore(kAnswerHeaderBytes + kUniqueIdBytes, needed);
    answer->accepted = true;
    std::memcpy(answer->id.data(), bytes.data() + kAnswerHeaderBytes, kUniqueIdBytes);
    return WireParse::kDone;
  }
  if (status != 1) return WireParse::kMalformed;
  if (bytes.size() < kAnswerHeaderBytes + 4) return NeedMore(kAnswerHeaderBytes + 4, needed);
  const std::uint32_t length = GetU32(bytes, kAnswerHeaderBytes);
  if (length > kMaxRendezvousText) return WireParse::kMalformed;
  if (bytes.size() < kAnswerHeaderBytes + 4 + length)
    return NeedMore(kAnswerHeaderBytes + 4 + length, needed);
  answer->accepted = false;
  answer->refusal = std::string(bytes.substr(kAnswerHeaderBytes + 4, length));
  return WireParse::kDone;
}

std::string PrintableBytes(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (const char c : bytes) {
    const unsigned char u = static_cast<unsigned char>(c);
    out += (u >= 0x20 && u < 0x7f) ? c : '.';
  }
  return out;
}

}  // namespace hkim::nccl_check

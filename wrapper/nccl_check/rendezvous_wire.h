#pragma once
// The rendezvous messages as bytes, apart from the sockets (rendezvous.cc): building them and
// parsing what a peer sent, so every byte that arrives over the network is checked in one place
// (fuzzed by wrapper/nccl_check/fuzz/rendezvous_fuzzer.cc).
//
// Wire format (integers are 32-bit big-endian):
//   hello  peer -> rank 0 : "HKIMRDV1" version ordinal replicas local_gpus job_len job[job_len]
//   answer rank 0 -> peer : "HKIMRDV1" status(0) id[128]    |   "HKIMRDV1" status(1) len msg[len]
//   ack    peer -> rank 0 : "HKIMRDV1" ordinal                (the id arrived; version 2)
// Rank 0 counts a peer as served only at its ack, so a peer that gave up before the answer
// arrived (and retries) is never counted, and a re-sent hello is answered with the id again.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace hkim::nccl_check {

/// The opaque bytes of an ncclUniqueId (NCCL_UNIQUE_ID_BYTES = 128).
inline constexpr std::size_t kUniqueIdBytes = 128;
using UniqueIdBytes = std::array<char, kUniqueIdBytes>;

inline constexpr std::string_view kRendezvousMagic = "HKIMRDV1";
inline constexpr std::uint32_t kRendezvousVersion = 2;
/// Longest job name or refusal text accepted; a longer length field is a malformed message.
inline constexpr std::uint32_t kMaxRendezvousText = 4096;
/// Magic and the five integers of a hello.
inline constexpr std::size_t kHelloHeaderBytes = 28;
/// Magic and the status of an answer.
inline constexpr std::size_t kAnswerHeaderBytes = 12;
/// Magic and the ordinal of an ack.
inline constexpr std::size_t kAckBytes = 12;
/// The most bytes any message can take (a hello with the longest job): a parser never asks for
/// more.
inline constexpr std::size_t kMaxRendezvousMessage =
    std::max(kHelloHeaderBytes, kAnswerHeaderBytes + 4) + kMaxRendezvousText;

/// Who a process is within the job; both sides must agree on job, replicas and local_gpus.
struct RendezvousIdentity {
  std::string job;  ///< the StatefulSet name (pod name without its ordinal)
  int ordinal = 0;
  int replicas = 1;
  int local_gpus = 1;
};

/// A peer's hello: its protocol version and who it says it is.
struct RendezvousHello {
  std::uint32_t version = 0;
  RendezvousIdentity identity;
};

/// Rank 0's answer: the id, or why the peer was refused.
struct RendezvousAnswer {
  bool accepted = false;
  UniqueIdBytes id{};
  std::string refusal;  ///< as sent: may hold any byte (show it through PrintableBytes)
};

/// Where parsing the bytes received so far stands.
enum class WireParse {
  kNeedMore,   ///< read until `*needed` bytes in all (always more than received, at most
               ///< kMaxRendezvousMessage), then parse again
  kDone,       ///< the message is complete (bytes beyond it are not looked at)
  kForeign,    ///< the bytes do not start with the magic: not an hkim-nccl-check peer
  kMalformed,  ///< the magic is right but a length or status is impossible
};

/// The hello `self` sends.
std::string EncodeHello(const RendezvousIdentity& self);

/// Parses a hello from the bytes received so far (see WireParse).
WireParse ParseHello(std::string_view bytes, RendezvousHello* hello, std::size_t* needed);

/// Why rank 0 (`self`) refuses `hello`; "" when it is accepted. An ordinal that was served
/// before is accepted again (the same pod retrying after a lost answer). Text the peer sent
/// appears through PrintableBytes.
std::string RefusalOf(const RendezvousIdentity& self, const RendezvousHello& hello);

/// Rank 0's answers: the id, or a refusal (cut to kMaxRendezvousText bytes).
std::string EncodeAccept(const UniqueIdBytes& id);
std::string EncodeRefusal(const std::string& reason);

/// The peer's ack of the id, as `ordinal`.
std::string EncodeAck(int ordinal);

/// Parses an ack (see WireParse); `*ordinal` is the ordinal it names.
WireParse ParseAck(std::string_view bytes, int* ordinal, std::size_t* needed);

/// Parses rank 0's answer from the bytes received so far (see WireParse).
WireParse ParseAnswer(std::string_view bytes, RendezvousAnswer* answer, std::size_t* needed);

/// Bytes a peer sent, safe for a message: printable ASCII kept, anything else shown as '.'.
std::string PrintableBytes(std::string_view bytes);

}  // namespace hkim::nccl_check

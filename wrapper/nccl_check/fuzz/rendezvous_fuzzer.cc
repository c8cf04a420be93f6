// libFuzzer target: arbitrary bytes as the messages hkim-nccl-check's ranks exchange during the
// job-scope rendezvous (nccl_check/rendezvous_wire.h): a peer's hello as rank 0 reads it, and
// rank 0's answer as a peer reads it. The bytes are fed the way the socket reader feeds them
// (only as many as the parser asks for, in chunks the input chooses), and the parser's promises
// are checked: it never asks for fewer bytes than it has or more than one message can take, a
// complete message round-trips through its encoder, and every text built from peer bytes is
// printable. Any broken promise aborts (a crash for libFuzzer).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "nccl_check/rendezvous_wire.h"

namespace {

using namespace hkim::nccl_check;

void Require(bool condition) {
  if (!condition) std::abort();
}

bool IsPrintable(const std::string& text) {
  for (char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) return false;
  }
  return true;
}

// Feeds `stream` to `parse` like rendezvous.cc's reader: at most `chunk` bytes at a time and
// never beyond what the parser asked for. Returns the final state and the bytes it consumed.
template <class Message>
WireParse Feed(std::string_view stream, std::size_t chunk,
               WireParse (*parse)(std::string_view, Message*, std::size_t*), Message* message,
               std::size_t* consumed) {
  std::size_t have = 0;
  for (;;) {
    std::size_t needed = 0;
    const WireParse state = parse(stream.substr(0, have), message, &needed);
    *consumed = have;
    if (state != WireParse::kNeedMore) return state;
    Require(needed > have && needed <= kMaxRendezvousMessage);
    if (have == stream.size()) return state;  // the peer stopped sending
    have = std::min({stream.size(), needed, have + chunk});
  }
}

void CheckHello(std::string_view stream, std::size_t chunk, std::uint8_t knobs) {
  RendezvousHello hello;
  std::size_t consumed = 0;
  if (Feed(stream, chunk, ParseHello, &hello, &consumed) != WireParse::kDone) return;
  Require(consumed >= kHelloHeaderBytes && hello.identity.job.size() <= kMaxRendezvousText);
  // What rank 0 would answer, for a rank 0 that agrees with the peer in some ways only.
  RendezvousIdentity self{knobs & 1 ? hello.identity.job : "train", 0,
                          knobs & 2 ? hello.identity.replicas : 4,
                          knobs & 4 ? hello.identity.local_gpus : 8};
  const std::string refusal = RefusalOf(self, hello);
  Require(IsPrintable(refusal));  // rank 0's own job is "train" or equal to the peer's
  // A hello of the current version re-encodes to exactly the bytes that were parsed.
  if (hello.version == kRendezvousVersion)
    Require(EncodeHello(hello.identity) == stream.substr(0, consumed));
  RendezvousAnswer answer;
  std::size_t used = 0;
  const std::string reply = refusal.empty() ? EncodeAccept(UniqueIdBytes{}) : EncodeRefusal(refusal);
  Require(Feed(reply, reply.size(), ParseAnswer, &answer, &used) == WireParse::kDone);
  Require(answer.accepted == refusal.empty() && used == reply.size());
  if (!answer.accepted) Require(answer.refusal == refusal.substr(0, kMaxRendezvousText));
}

void CheckAnswer(std::string_view stream, std::size_t chunk) {
  RendezvousAnswer answer;
  std::size_t consumed = 0;
  if (Feed(stream, chunk, ParseAnswer, &answer, &consumed) != WireParse::kDone) return;
  const std::string again = answer.accepted ? EncodeAccept(answer.id) : EncodeRefusal(answer.refusal);
  Require(again == stream.substr(0, consumed));
  Require(IsPrintable(PrintableBytes(answer.refusal)));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  // First byte: the reader's chunk size (1..256) and which way the bytes flow; second: how far
  // rank 0 agrees with the peer. The rest is the stream.
  const std::size_t chunk = (data[0] >> 1) + 1;
  const std::string_view stream(reinterpret_cast<const char*>(data + 2), size - 2);
  if (data[0] & 1)
    CheckAnswer(stream, chunk);
  else
    CheckHello(stream, chunk, data[1]);
  return 0;
}

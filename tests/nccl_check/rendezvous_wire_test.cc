#include "rendezvous_wire.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "test_support.h"

namespace hkim::nccl_check {
namespace {

RendezvousIdentity Pod(int ordinal, int replicas = 4, int gpus = 8, std::string job = "train") {
  return RendezvousIdentity{std::move(job), ordinal, replicas, gpus};
}

std::string U32(std::uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
          static_cast<char>(v)};
}

TEST(RendezvousWire, HelloRoundTripsAndAsksForExactlyWhatIsMissing) {
  const std::string bytes = EncodeHello(Pod(3, 8, 8, "llama-70b"));
  ASSERT_EQ(bytes.size(), kHelloHeaderBytes + 9);
  RendezvousHello hello;
  std::size_t needed = 0;
  EXPECT_EQ(ParseHello("", &hello, &needed), WireParse::kNeedMore);
  EXPECT_EQ(needed, kHelloHeaderBytes);
  EXPECT_EQ(ParseHello(std::string_view(bytes).substr(0, 28), &hello, &needed),
            WireParse::kNeedMore);
  EXPECT_EQ(needed, bytes.size());
  ASSERT_EQ(ParseHello(bytes, &hello, &needed), WireParse::kDone);
  EXPECT_EQ(hello.version, kRendezvousVersion);
  EXPECT_EQ(hello.identity.job, "llama-70b");
  EXPECT_EQ(hello.identity.ordinal, 3);
  EXPECT_EQ(hello.identity.replicas, 8);
}

TEST(RendezvousWire, AForeignPeerIsToldApartAtItsFirstWrongByte) {
  RendezvousHello hello;
  std::size_t needed = 0;
  EXPECT_EQ(ParseHello("G", &hello, &needed), WireParse::kForeign);
  EXPECT_EQ(ParseHello("HKIM", &hello, &needed), WireParse::kNeedMore);  // so far so good
  EXPECT_EQ(ParseHello("HKIMRDV2", &hello, &needed), WireParse::kForeign);
  RendezvousAnswer answer;
  EXPECT_EQ(ParseAnswer("HTTP/1.1 400", &answer, &needed), WireParse::kForeign);
}

TEST(RendezvousWire, AJobLengthBeyondTheLimitIsMalformedNotAnAllocation) {
  RendezvousHello hello;
  std::size_t needed = 0;
  const std::string bytes =
      std::string(kRendezvousMagic) + U32(1) + U32(1) + U32(4) + U32(8) + U32(0xffffffff);
  EXPECT_EQ(ParseHello(bytes, &hello, &needed), WireParse::kMalformed);
  const std::string at_limit = std::string(kRendezvousMagic) + U32(1) + U32(1) + U32(4) + U32(8) +
                               U32(kMaxRendezvousText);
  EXPECT_EQ(ParseHello(at_limit, &hello, &needed), WireParse::kNeedMore);
  EXPECT_EQ(needed, kHelloHeaderBytes + kMaxRendezvousText);
}

TEST(RendezvousWire, AbsurdCountsAreRefusedWithTheirValues) {
  const std::string bytes = std::string(kRendezvousMagic) + U32(kRendezvousVersion) + U32(0x80000000) + U32(4) +
                            U32(8) + U32(5) + "train";
  RendezvousHello hello;
  std::size_t needed = 0;
  ASSERT_EQ(ParseHello(bytes, &hello, &needed), WireParse::kDone);
  EXPECT_EQ(RefusalOf(Pod(0), hello), "ordinal -2147483648 is not in 1..3");
}

// Found by rendezvous_fuzzer: replicas - 1 overflowed for INT_MIN (undefined behaviour).
TEST(RendezvousWire, RefusalIsDefinedForAnyCounts) {
  const RendezvousIdentity odd = Pod(2560001, INT32_MIN, -1);
  EXPECT_EQ(RefusalOf(odd, {kRendezvousVersion, odd}), "ordinal 2560001 is not in 1..-2147483649");
}

TEST(RendezvousWire, RefusalsNameWhatDiffers) {
  auto refusal = [&](const RendezvousIdentity& peer, std::uint32_t version = kRendezvousVersion) {
    RendezvousHello hello{version, peer};
    return RefusalOf(Pod(0), hello);
  };
  EXPECT_EQ(refusal(Pod(1)), "");
  EXPECT_EQ(refusal(Pod(1), 1), "rendezvous protocol version 1, rank 0 speaks 2");
  EXPECT_EQ(refusal(Pod(1, 2)), "HKIM_REPLICAS=2 there but 4 at rank 0");
  EXPECT_EQ(refusal(Pod(1, 4, 4)), "4 GPUs there but 8 at rank 0 (every pod needs the same count)");
  EXPECT_EQ(refusal(Pod(4)), "ordinal 4 is not in 1..3");
}

TEST(RendezvousWire, AnOrdinalServedBeforeIsAnsweredAgain) {
  // A peer that lost rank 0's answer says hello again: it gets the id, not a refusal.
  EXPECT_EQ(RefusalOf(Pod(0), {kRendezvousVersion, Pod(2)}), "");
}

TEST(RendezvousWire, AckRoundTripsAndAForeignOneIsToldApart) {
  int ordinal = -1;
  std::size_t needed = 0;
  const std::string ack = EncodeAck(3);
  EXPECT_EQ(ack.size(), kAckBytes);
  EXPECT_EQ(ParseAck(ack.substr(0, 5), &ordinal, &needed), WireParse::kNeedMore);
  EXPECT_EQ(needed, kAckBytes);
  EXPECT_EQ(ParseAck(ack, &ordinal, &needed), WireParse::kDone);
  EXPECT_EQ(ordinal, 3);
  EXPECT_EQ(ParseAck("GET / HTTP/1.1", &ordinal, &needed), WireParse::kForeign);}

TEST(RendezvousWire, APeersJobWithRawBytesIsShownPrintable) {
  RendezvousHello hello{kRendezvousVersion, Pod(1, 4, 8, std::string("tr\x1b[2J\xff\n", 8))};
  EXPECT_EQ(RefusalOf(Pod(0), hello), "job 'tr.[2J..' is not rank 0's job 'train'");
}

TEST(RendezvousWire, AnswersRoundTripAndBadOnesAreMalformed) {
  UniqueIdBytes id;
  for (std::size_t i = 0; i < id.size(); ++i) id[i] = static_cast<char>(i * 3);
  RendezvousAnswer answer;
  std::size_t needed = 0;
  ASSERT_EQ(ParseAnswer(EncodeAccept(id), &answer, &needed), WireParse::kDone);
  EXPECT_TRUE(answer.accepted);
  EXPECT_EQ(answer.id, id);
  ASSERT_EQ(ParseAnswer(EncodeRefusal("no"), &answer, &needed), WireParse::kDone);
  EXPECT_FALSE(answer.accepted);
  EXPECT_EQ(answer.refusal, "no");
  EXPECT_EQ(EncodeRefusal(std::string(10000, 'x')).size(), kAnswerHeaderBytes + 4 + kMaxRendezvousText);
  EXPECT_EQ(ParseAnswer(std::string(kRendezvousMagic) + U32(7), &answer, &needed),
            WireParse::kMalformed);
  EXPECT_EQ(ParseAnswer(std::string(kRendezvousMagic) + U32(1) + U32(kMaxRendezvousText + 1),
                        &answer, &needed),
            WireParse::kMalformed);
  EXPECT_EQ(ParseAnswer(std::string(kRendezvousMagic) + U32(0) + "short", &answer, &needed),
            WireParse::kNeedMore);
  EXPECT_EQ(needed, kAnswerHeaderBytes + kUniqueIdBytes);
}

// Every committed seed of the fuzzer parses without breaking the parser's promises (the same
// checks as wrapper/nccl_check/fuzz/rendezvous_fuzzer.cc, here without libFuzzer).
TEST(RendezvousWire, FuzzSeedCorpusKeepsTheParsersPromises) {
  const std::filesystem::path corpus = HKIM_RENDEZVOUS_CORPUS;
  int seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(corpus)) {
    const std::string file = test_support::ReadFile(entry.path());
    const std::string bytes = file.size() >= 2 ? file.substr(2) : "";
    for (std::size_t have = 0; have <= bytes.size(); ++have) {
      const std::string_view prefix = std::string_view(bytes).substr(0, have);
      std::size_t needed = 0;
      RendezvousHello hello;
      if (ParseHello(prefix, &hello, &needed) == WireParse::kNeedMore) {
        EXPECT_GT(needed, have) << entry.path();
        EXPECT_LE(needed, kMaxRendezvousMessage) << entry.path();
      }
      RendezvousAnswer answer;
      if (ParseAnswer(prefix, &answer, &needed) == WireParse::kNeedMore) {
        EXPECT_GT(needed, have) << entry.path();
        EXPECT_LE(needed, kMaxRendezvousMessage) << entry.path();
      }
    }
    ++seen;
  }
  EXPECT_GE(seen, 10);
}

}  // namespace
}  // namespace hkim::nccl_check

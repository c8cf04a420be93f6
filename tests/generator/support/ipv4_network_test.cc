// The one CIDR parser (support/ipv4_network.h) every stage uses: what it accepts, what it refuses
// (what sscanf or inet_pton let through in the copies it replaced), and overlaps.
#include "support/ipv4_network.h"

#include <gtest/gtest.h>

namespace hkim {
namespace {

TEST(Ipv4Network, ParsesAndMasksToThePrefix) {
  auto net = ParseCidr("10.0.104.7/24");
  ASSERT_TRUE(net);
  EXPECT_EQ(net->address, (10u << 24) | (0u << 16) | (104u << 8));
  EXPECT_EQ(net->prefix, 24);
  EXPECT_EQ(net->Size(), 256u);
  EXPECT_TRUE(ParseCidr("0.0.0.0/0"));
  EXPECT_TRUE(ParseCidr("255.255.255.255/32"));
}

TEST(Ipv4Network, RefusesAnythingButFourOctetsAndAPrefix) {
  for (const char* bad : {"", "10.0.103/24", "10.0.103.0", "10.0.103.0/", "10.0.103.0/33",
                          "256.0.0.0/8", "10.0.103.0/24 ", " 10.0.103.0/24", "+10.0.103.0/24",
                          "10.-1.103.0/24", "1000.0.0.0/8", "10.0.103.0/024", "10.0.103.0/24/1",
                          "10.0.103.0/2x", "10.0.103.10-10.0.103.20/24", "a.b.c.d/8"}) {
    EXPECT_FALSE(ParseCidr(bad)) << bad;
  }
}

TEST(Ipv4Network, OverlapIsDecidedByTheShorterPrefix) {
  EXPECT_TRUE(ParseCidr("10.0.103.0/24")->Overlaps(*ParseCidr("10.0.0.0/16")));
  EXPECT_TRUE(ParseCidr("10.0.0.0/16")->Overlaps(*ParseCidr("10.0.103.128/25")));
  EXPECT_FALSE(ParseCidr("10.0.103.0/24")->Overlaps(*ParseCidr("10.0.104.0/24")));
  EXPECT_TRUE(ParseCidr("0.0.0.0/0")->Overlaps(*ParseCidr("192.168.1.0/24")));
}

}  // namespace
}  // namespace hkim

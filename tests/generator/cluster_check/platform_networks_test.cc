// A rail's range against the cluster's real networks (cluster.platform-network-overlap):
// the nodes' addresses, their pod CIDRs and OpenShift's Network config, read from the export;
// what the export lacks is named in the cluster.not-exported note.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>

#include "cluster_check/check_fixture.h"
#include "test_files.h"

namespace hkim {
namespace {

using cluster_check_test::CheckEdited;
using cluster_check_test::Checked;
using cluster_check_test::CheckText;
using cluster_check_test::FindItem;
using cluster_check_test::kBarcelona;
using cluster_check_test::kFixtures;
using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;

constexpr char kRule[] = "cluster.platform-network-overlap";
constexpr char kOkeH100[] = "profiles/oke-h100.yaml";


TEST(PlatformNetworks, TheShippedProfilesClustersOverlapNothingAndLackNothing) {
  for (const auto& [profile, fixture] :
       {std::pair{kBarcelona, "barcelona.json"}, std::pair{kBarcelona, "barcelona-live.json"},
        std::pair{kOkeH100, "oke-blocks.json"}}) {
    Checked c = CheckText(profile, fixture, test_files::ReadFile(kFixtures / fixture));
    EXPECT_TRUE(c.Of(kRule).empty()) << fixture << "\n" << c.All();
    for (const Diagnostic* note : c.Of("cluster.not-exported")) {
      EXPECT_THAT(note->message, Not(HasSubstr("addresses"))) << fixture;
      EXPECT_THAT(note->message, Not(HasSubstr("Network (config.openshift.io)"))) << fixture;
    }
  }
}

TEST(PlatformNetworks, ANodeAddressInsideARailsRangeIsAnErrorAtTheRange) {
  Checked c = CheckEdited(kBarcelona, "barcelona.json", [](json& items) {
    FindItem(items, "Node", "h100-n02")["status"]["addresses"][0]["address"] = "10.0.104.7";
  });
  auto found = c.Of(kRule);
  ASSERT_EQ(found.size(), 1u) << c.All();
  const Diagnostic& d = *found.front();
  EXPECT_EQ(d.severity, Severity::kError);
  EXPECT_EQ(d.data_path, "/network/rails/1/ipam/range");
  EXPECT_THAT(d.location.file, HasSubstr("barcelona-h100-cx7.yaml"));
  EXPECT_EQ(d.location.line, 76);
  EXPECT_THAT(d.message, HasSubstr("Node/h100-n02 (barcelona.json:"));
  EXPECT_THAT(d.message, HasSubstr("InternalIP 10.0.104.7"));
  EXPECT_THAT(d.message, HasSubstr("rail eno6np0's 10.0.104.0/24"));
  EXPECT_THAT(d.fix, HasSubstr("outside the nodes' network"));
}

TEST(PlatformNetworks, PodCidrsInsideAnNvIpamPoolFoldIntoOneErrorAtItsSubnet) {
  Checked c = CheckEdited(kOkeH100, "oke-blocks.json", [](json& items) {
    int i = 0;
    for (json& item : items) {
      if (item["kind"] != "Node") continue;
      const std::string cidr = "192.168." + std::to_string(i++) + ".0/25";
      item["spec"]["podCIDR"] = cidr;
      item["spec"]["podCIDRs"] = {cidr};
    }
  });
  auto found = c.Of(kRule);
  ASSERT_EQ(found.size(), 1u) << c.All();
  EXPECT_EQ(found.front()->data_path, "/network/rails/0/ipam/pool/subnet");
  EXPECT_THAT(found.front()->location.file, HasSubstr("oke-h100.yaml"));
  EXPECT_THAT(found.front()->message, HasSubstr("podCIDR 192.168.0.0/25"));
  EXPECT_THAT(found.front()->message, HasSubstr("and 6 more: a pod network that overlaps rail "
                                                "oci-rdma-sriov's 192.168.0.0/16"));
  EXPECT_THAT(found.front()->fix, HasSubstr("podCIDRs"));
}

TEST(PlatformNetworks, OpenShiftsNetworkConfigOverlappingARailIsAnErrorPerRail) {
  Checked c = CheckEdited(kBarcelona, "barcelona.json", [](json& items) {
    json& network = FindItem(items, "Network", "cluster");
    network["status"]["clusterNetwork"][0]["cidr"] = "10.0.0.0/16";  // overlaps all four rails
    network["spec"]["serviceNetwork"] = {"10.0.105.0/24"};
  });
  auto found = c.Of(kRule);
  std::string text;
  for (const Diagnostic* d : found) text += d->data_path + " " + d->message + "\n";
  ASSERT_EQ(found.size(), 5u) << c.All();
  EXPECT_THAT(text, HasSubstr("/network/rails/0/ipam/range Network/cluster (barcelona.json:"));
  EXPECT_THAT(text, HasSubstr("the cluster's pod network 10.0.0.0/16 (clusterNetwork) overlaps "
                              "rail eno5np0's 10.0.103.0/24"));
  EXPECT_THAT(text, HasSubstr("/network/rails/2/ipam/range Network/cluster"));
  EXPECT_THAT(text, HasSubstr("the cluster's service network 10.0.105.0/24 (serviceNetwork) "
                              "overlaps rail eno7np0's 10.0.105.0/24"));
  EXPECT_THAT(found.front()->fix, HasSubstr("give the rail a range outside 10.0.0.0/16"));
  // The defaults the fixture keeps overlap nothing.
  EXPECT_THAT(text, Not(HasSubstr("172.30.0.0/16")));
}

TEST(PlatformNetworks, WhatTheExportLacksIsNamedInTheNotExportedNote) {
  Checked c = CheckEdited(kBarcelona, "barcelona.json", [](json& items) {
    json kept = json::array();
    for (json& item : items) {
      if (item["kind"] == "Network") continue;
      if (item["kind"] == "Node") item["status"].erase("addresses");
      kept.push_back(item);
    }
    items = kept;
  });
  EXPECT_TRUE(c.Of(kRule).empty()) << c.All();
  auto notes = c.Of("cluster.not-exported");
  ASSERT_EQ(notes.size(), 1u) << c.All();
  EXPECT_THAT(notes.front()->message, HasSubstr("Network (config.openshift.io)"));
  EXPECT_THAT(notes.front()->message,
              HasSubstr("the cluster's pod and service networks against the rails' ranges"));
  EXPECT_THAT(notes.front()->message, HasSubstr("the nodes' addresses against the rails' ranges"));
  EXPECT_THAT(notes.front()->fix, HasSubstr("networks.config.openshift.io"));
}

}  // namespace
}  // namespace hkim

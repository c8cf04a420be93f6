// images.digests (model/image_digest.h): what the profile names is pinned everywhere, the mirror
// keeps the digest, and a digest for an image the profile does not name is an error listing
// the ones it does.
#include "model/image_digest.h"

#include <gtest/gtest.h>

#include "model/model.h"
#include "model/wrapper_image.h"
#include "test_files.h"

namespace {

using hkim::test_files::BuildFrom;
using hkim::test_files::ReadProfile;

const std::string kDigest = "sha256:" + std::string(64, 'd');
const std::string kWorkload =
    "iad.ocir.io/hpc_limited_availability/nccl-tests:pytorch-23.10-nccl-2.19.3-1";

std::string Digests(const std::vector<std::string>& images) {
  std::string text = "\nimages:\n  digests:\n";
  for (const std::string& image : images) text += "    " + image + ": " + kDigest + "\n";
  return text;
}

TEST(ImageDigest, ListsTheImagesTheProfileNamesDefaultsIncluded) {
  const hkim::Profile p = BuildFrom(ReadProfile("oke-h100"));
  std::vector<std::string> pointers;
  for (const hkim::ProfileImage& image : hkim::ProfileImages(p)) {
    pointers.push_back(image.pointer);
    EXPECT_FALSE(image.pinned) << image.reference;
  }
  EXPECT_EQ(pointers, (std::vector<std::string>{
                          "/workload/image", "/wrapper/image", "/operators/vf_config/image",
                          "/network/sriov_device_plugin/version", "/network/nv_ipam/version"}));
  // The NicClusterPolicy's images as the Network Operator release names them.
  EXPECT_EQ(hkim::ProfileImages(p)[3].reference,
            "nvcr.io/nvidia/mellanox/sriov-network-device-plugin:network-operator-v25.10.0");
  // Where another profile renders the policy (install: shared), this bundle names none.
  const hkim::Profile shared = BuildFrom(ReadProfile("oke-a100"));
  EXPECT_EQ(hkim::ProfileImages(shared).size(), 3u);
}

TEST(ImageDigest, PinsANicClusterPolicyImageThroughItsVersion) {
  const std::string plugin =
      "nvcr.io/nvidia/mellanox/sriov-network-device-plugin:network-operator-v25.10.0";
  hkim::Profile p = BuildFrom(ReadProfile("oke-h100") + Digests({plugin}) +
                              "  mirror: mirror.example.com\n"
                              "  chart_mirror: https://charts.example.com/gpu\n");
  EXPECT_EQ(p.network.sriov_device_plugin->version, kDigest);
  EXPECT_TRUE(hkim::ProfileImages(p)[3].pinned);
  EXPECT_FALSE(hkim::ProfileImages(p)[4].pinned);  // nv-ipam: not named
}

TEST(ImageDigest, PinsEachNamedImageAndTheMirrorKeepsTheDigest) {
  const std::string wrapper = BuildFrom(ReadProfile("oke-h100")).wrapper.image;
  hkim::Profile p = BuildFrom(ReadProfile("oke-h100") +
                              Digests({kWorkload, wrapper, "docker.io/library/oraclelinux:9"}));
  EXPECT_EQ(p.workload.image, kWorkload + "@" + kDigest);
  EXPECT_EQ(p.wrapper.digest, kDigest);
  EXPECT_EQ(hkim::WrapperImageReference(p.wrapper), wrapper + "@" + kDigest);
  EXPECT_EQ(p.operators->vf_config->image, "docker.io/library/oraclelinux:9@" + kDigest);
  for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(hkim::ProfileImages(p)[i].pinned) << i;

  p = BuildFrom(ReadProfile("oke-h100") + Digests({"docker.io/library/oraclelinux:9"}) +
                "  mirror: mirror.example.com:5000/gpu\n"
                "  chart_mirror: https://charts.example.com/gpu\n");
  EXPECT_EQ(p.operators->vf_config->image,
            "mirror.example.com:5000/gpu/library/oraclelinux:9@" + kDigest);
}

TEST(ImageDigest, AnImageTheProfileDoesNotNameIsAnErrorListingTheNamedOnes) {
  hkim::DiagnosticSink sink;
  auto loaded = hkim::LoadProfileFromText(
      "p.yaml", ReadProfile("oke-h100") + Digests({"docker.io/library/oraclelinux:8"}), sink);
  ASSERT_TRUE(loaded);
  EXPECT_FALSE(hkim::BuildProfile(*loaded, sink));
  ASSERT_EQ(sink.diagnostics().size(), 1u);
  const hkim::Diagnostic& d = sink.diagnostics()[0];
  EXPECT_EQ(d.rule, "model.image-digest");
  EXPECT_EQ(d.data_path, "/images/digests/docker.io~1library~1oraclelinux:8");
  EXPECT_TRUE(d.location.known());
  EXPECT_EQ(d.message,
            "a digest is given for 'docker.io/library/oraclelinux:8', an image this profile does "
            "not name (--image-digest or images.digests)");
  EXPECT_EQ(d.fix.rfind("did you mean docker.io/library/oraclelinux:9? name one of the "
                        "profile's images as written: " +
                            kWorkload + ", quay.io/hkim/",
                        0),
            0u)
      << d.fix;
}

}  // namespace

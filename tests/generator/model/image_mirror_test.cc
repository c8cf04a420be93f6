// images.mirror (model/image_mirror.h): how a reference moves under the mirror, and what cannot.
#include "model/image_mirror.h"

#include <gtest/gtest.h>

#include "model/model.h"
#include "test_files.h"

namespace {

using hkim::MirroredImage;
using hkim::MirroredRepository;

TEST(ImageMirror, KeepsTheRepositoryPathUnderTheMirror) {
  const std::string m = "mirror.example.com:5000/gpu";
  EXPECT_EQ(MirroredImage(m, "nvcr.io/nvidia/mellanox/plugins:v1"),
            "mirror.example.com:5000/gpu/nvidia/mellanox/plugins:v1");
  EXPECT_EQ(MirroredImage(m, "quay.io/hkim/hkim-wrapper:0.1.0@sha256:0123abcd"),
            "mirror.example.com:5000/gpu/hkim/hkim-wrapper:0.1.0@sha256:0123abcd");
  // Docker Hub short names as the container tools normalise them.
  EXPECT_EQ(MirroredImage(m, "oraclelinux:9"), "mirror.example.com:5000/gpu/library/oraclelinux:9");
  EXPECT_EQ(MirroredImage(m, "bitnami/kubectl"), "mirror.example.com:5000/gpu/bitnami/kubectl");
  EXPECT_EQ(MirroredImage(m, "localhost:5000/a/b:1"), "mirror.example.com:5000/gpu/a/b:1");
  // Already under the mirror: unchanged (a profile may name mirrored images itself).
  EXPECT_EQ(MirroredImage(m, m + "/x/y:1"), m + "/x/y:1");
  EXPECT_EQ(MirroredImage("", "Anything"), "Anything");
  EXPECT_EQ(MirroredRepository(m, "nvcr.io/nvidia/mellanox"), m + "/nvidia/mellanox");
}

TEST(ImageMirror, RefusesWhatIsNotAReference) {
  const std::string m = "mirror.example.com";
  EXPECT_FALSE(MirroredImage(m, "quay.io/Hkim/wrapper:1"));           // upper-case path
  EXPECT_FALSE(MirroredImage(m, "quay.io//wrapper:1"));               // empty component
  EXPECT_FALSE(MirroredImage(m, "quay.io/a/b@sha256:XYZ"));           // not a digest
  EXPECT_FALSE(MirroredImage(m, "quay.io/a/b:-x"));                   // not a tag
  EXPECT_FALSE(MirroredRepository(m, "nvcr.io/nvidia/mellanox:v1"));  // a repository has no tag
}

TEST(ImageMirror, ModelRewritesTheProfileAndNamesWhatItCannot) {
  using hkim::test_files::ReadProfile;
  using hkim::test_files::Replace;
  std::string text = ReadProfile("oke-h100") +
                     "\nimages:\n  mirror: mirror.example.com\n"
                     "  chart_mirror: https://charts.example.com/gpu\n";
  hkim::Profile p = hkim::test_files::BuildFrom(text);
  EXPECT_EQ(p.workload.image.rfind("mirror.example.com/", 0), 0u) << p.workload.image;
  EXPECT_EQ(p.wrapper.image.rfind("mirror.example.com/hkim/hkim-wrapper:", 0), 0u);
  ASSERT_TRUE(p.operators && p.operators->gpu_operator);
  EXPECT_EQ(p.operators->gpu_operator->repo_url, "https://charts.example.com/gpu");
  EXPECT_EQ(p.operators->vf_config->image, "mirror.example.com/library/oraclelinux:9");

  // No chart mirror, and an image that is not a reference: both named, at the profile.
  hkim::DiagnosticSink sink;
  std::string bad = ReadProfile("oke-h100") + "\nimages:\n  mirror: mirror.example.com\n";
  bad = Replace(bad, "image: iad.ocir.io/hpc_limited_availability/",
                "image: iad.ocir.io/HPC_limited_availability/");
  auto loaded = hkim::LoadProfileFromText("p.yaml", bad, sink);
  ASSERT_TRUE(loaded);
  EXPECT_FALSE(hkim::BuildProfile(*loaded, sink));
  std::string messages;
  for (const auto& d : sink.diagnostics()) {
    // An upper-case path is no image reference at all, before any mirror.
    EXPECT_TRUE(d.rule == "model.image-mirror" || d.rule == "model.image-reference") << d.rule;
    messages += d.message + "\n";
  }
  EXPECT_NE(messages.find("iad.ocir.io/HPC_limited_availability/"), std::string::npos) << messages;
  EXPECT_NE(messages.find("the chart gpu-operator"), std::string::npos) << messages;
}

}  // namespace

#include "verbs_probe.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

namespace hkim::wrapper {
namespace {

TEST(VerbsProbe, MissingLibraryMeansSysfsOnly) {
  VerbsProbe probe = ProbeVerbs({{"mlx5_6", {1}}}, "libhkim-no-such-verbs.so.1");
  EXPECT_FALSE(probe.available);
  EXPECT_NE(probe.note.find("libhkim-no-such-verbs.so.1 not loadable"), std::string::npos);
  EXPECT_TRUE(probe.devices.empty());
}

TEST(VerbsProbe, LibraryWithoutVerbsSymbolsIsRejected) {
  VerbsProbe probe = ProbeVerbs({{"mlx5_6", {1}}}, "libm.so.6");
  EXPECT_FALSE(probe.available);
  EXPECT_NE(probe.note.find("lacks the expected verbs symbols"), std::string::npos);
}

TEST(VerbsProbe, DeviceAbsentFromTheListIsReported) {
  void* handle = ::dlopen("libibverbs.so.1", RTLD_NOW);
  if (handle == nullptr) GTEST_SKIP() << "libibverbs.so.1 is not installed here";
  VerbsProbe probe = ProbeVerbs({{"hkim_test_no_such_device", {1}}});
  ASSERT_TRUE(probe.available);
  const VerbsDevice& device = probe.devices.at("hkim_test_no_such_device");
  EXPECT_FALSE(device.listed);
  EXPECT_FALSE(device.opened);
  EXPECT_NE(device.error.find("not in ibv_get_device_list()"), std::string::npos);
}

}  // namespace
}  // namespace hkim::wrapper

// GPU tests (ctest label `gpu`): skipped where no CUDA device (or no driver library) is visible,
// or where no NCCL can be found.
#include "allreduce_runner.h"

#include <gtest/gtest.h>

#include "nccl_check.h"

namespace hkim::nccl_check {
namespace {

class Gpu : public ::testing::Test {
 protected:
  void SetUp() override {
    const CudaLoad cuda = LoadCudaApi();
    if (cuda.api == nullptr || VisibleGpuCount(*cuda.api) == 0) {
      GTEST_SKIP() << "no CUDA device visible: " << cuda.error;
    }
    const NcclLoad nccl = LoadNcclApi();
    if (nccl.api == nullptr) GTEST_SKIP() << "no NCCL: " << nccl.error;
    cuda_ = cuda.api;
    nccl_ = nccl.api;
    PrepareNcclEnvironment("");
  }
  const CudaApi* cuda_ = nullptr;
  const NcclApi* nccl_ = nullptr;
};

TEST_F(Gpu, LocalAllReduceIsExactAtEverySize) {
  RunnerSetup setup;
  setup.local_gpus = VisibleGpuCount(*cuda_);
  setup.world = setup.local_gpus;
  setup.max_bytes = (std::uint64_t{16} << 20) + 12;  // not a whole number of pattern periods
  AllReduceRunner runner(*cuda_, *nccl_, setup);
  for (std::uint64_t bytes : {std::uint64_t{4}, std::uint64_t{4092}, std::uint64_t{1} << 20,
                              (std::uint64_t{16} << 20) + 12}) {
    const SizeResult result = runner.Run(bytes, 3, 1);
    EXPECT_EQ(result.wrong_elements, 0u) << bytes << " bytes";
    EXPECT_GT(result.time_us, 0);
    if (setup.world > 1) EXPECT_GT(result.busbw_gbps, 0);
  }
}

TEST_F(Gpu, AgreeMaxReturnsTheLargestValue) {
  RunnerSetup setup;
  setup.local_gpus = VisibleGpuCount(*cuda_);
  setup.world = setup.local_gpus;
  setup.max_bytes = 4096;
  AllReduceRunner runner(*cuda_, *nccl_, setup);
  EXPECT_FLOAT_EQ(runner.AgreeMax(2.5), 2.5);
}

TEST_F(Gpu, RunRejectsASizeAboveTheBuffers) {
  RunnerSetup setup;
  setup.local_gpus = 1;
  setup.world = 1;
  setup.max_bytes = 4096;
  AllReduceRunner runner(*cuda_, *nccl_, setup);
  EXPECT_THROW(runner.Run(8192, 1, 0), GpuError);
}

}  // namespace
}  // namespace hkim::nccl_check

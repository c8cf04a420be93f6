// GPU tests (ctest label `gpu`): skipped where no CUDA device is visible.
#include "allreduce_runner.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <limits>

#include "fill_kernels.h"
#include "nccl_check.h"

namespace hkim::nccl_check {
namespace {

class Gpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (VisibleGpuCount() == 0) GTEST_SKIP() << "no CUDA device visible";
    PrepareNcclEnvironment("");
  }
};

TEST(FillPattern, ExpectedSumsAreExactForTheFillPattern) {
  // Host-side reference for small worlds: sum over r of ((k + r) mod 8) + 1.
  for (int world : {1, 2, 3, 8, 9, 17, 1000}) {
    const auto sums = ExpectedSums(world);
    for (int k = 0; k < 8; ++k) {
      long long total = 0;
      for (int r = 0; r < world; ++r) total += ((k + r) & 7) + 1;
      EXPECT_EQ(sums[k], static_cast<float>(total)) << "world " << world << " residue " << k;
    }
  }
}

TEST_F(Gpu, VerifyCountsPoisonAndAcceptsTheExactPattern) {
  constexpr std::size_t kCount = (1 << 20) + 3;
  float* data = nullptr;
  unsigned long long* counters = nullptr;
  ASSERT_EQ(cudaMalloc(&data, kCount * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&counters, 2 * sizeof(unsigned long long)), cudaSuccess);
  const auto verify = [&](int world) {
    const unsigned long long reset[2] = {0, std::numeric_limits<unsigned long long>::max()};
    cudaMemcpy(counters, reset, sizeof reset, cudaMemcpyHostToDevice);
    EXPECT_EQ(LaunchVerify(data, kCount, ExpectedSums(world), counters, nullptr), cudaSuccess);
    unsigned long long result[2];
    cudaMemcpy(result, counters, sizeof result, cudaMemcpyDeviceToHost);
    return std::pair(result[0], result[1]);
  };
  // Rank 0's input equals the sum for a world of one rank.
  ASSERT_EQ(LaunchFill(data, kCount, 0, nullptr), cudaSuccess);
  EXPECT_EQ(verify(1).first, 0u);
  // ... and is wrong almost everywhere for a world of two.
  EXPECT_GT(verify(2).first, kCount / 2);
  // Poison (all bytes 0xFF = NaN) is wrong everywhere; one good prefix moves the first index.
  cudaMemset(data, 0xFF, kCount * sizeof(float));
  EXPECT_EQ(verify(1), std::pair(static_cast<unsigned long long>(kCount), 0ull));
  ASSERT_EQ(LaunchFill(data, 1000, 0, nullptr), cudaSuccess);
  EXPECT_EQ(verify(1), std::pair(static_cast<unsigned long long>(kCount - 1000), 1000ull));
  cudaFree(data);
  cudaFree(counters);
}

TEST_F(Gpu, LocalAllReduceIsExactAtEverySize) {
  RunnerSetup setup;
  setup.local_gpus = VisibleGpuCount();
  setup.world = setup.local_gpus;
  setup.max_bytes = std::uint64_t{16} << 20;
  AllReduceRunner runner(setup);
  for (std::uint64_t bytes :
       {std::uint64_t{4}, std::uint64_t{4092}, std::uint64_t{1} << 20, std::uint64_t{16} << 20}) {
    const SizeResult result = runner.Run(bytes, 3, 1);
    EXPECT_EQ(result.wrong_elements, 0u) << bytes << " bytes";
    EXPECT_GT(result.time_us, 0);
    if (setup.world > 1) EXPECT_GT(result.busbw_gbps, 0);
  }
}

TEST_F(Gpu, RunRejectsASizeAboveTheBuffers) {
  RunnerSetup setup;
  setup.local_gpus = 1;
  setup.world = 1;
  setup.max_bytes = 4096;
  AllReduceRunner runner(setup);
  EXPECT_THROW(runner.Run(8192, 1, 0), GpuError);
}

}  // namespace
}  // namespace hkim::nccl_check

// GPU tests: they run when a CUDA device is present and skip otherwise.
#include "kernels/gpu/gpu_matmul.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "kernels/gpu/gpu_info.h"

namespace tact {
namespace {

TEST(GpuInfoTest, ReportsLibrariesWithOrWithoutADevice) {
  EXPECT_GE(gpu::DeviceCount(), 0);
  EXPECT_NE(gpu::LibraryVersions().find("cudnn"), std::string::npos);
}

TEST(GpuMatMulTest, WithoutADeviceIsUnavailable) {
  if (gpu::DeviceCount() > 0) GTEST_SKIP() << "a GPU is present";
  float a = 1, b = 2, c = 0;
  Status s = gpu::MatMulHost(&a, &b, &c, 1, 1, 1);
  EXPECT_EQ(s.code(), Code::kUnavailable) << s.ToString();
}

TEST(GpuMatMulTest, MatchesAPlainLoop) {
  if (gpu::DeviceCount() == 0) GTEST_SKIP() << "no CUDA device";
  const int64_t m = 67, n = 45, k = 129;
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> a(m * k), b(k * n), c(m * n);
  for (float& v : a) v = dist(gen);
  for (float& v : b) v = dist(gen);
  ASSERT_TRUE(gpu::MatMulHost(a.data(), b.data(), c.data(), m, n, k).ok());
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double want = 0;
      for (int64_t p = 0; p < k; ++p) want += static_cast<double>(a[i * k + p]) * b[p * n + j];
      EXPECT_NEAR(c[i * n + j], want, 1e-3) << i << "," << j;
    }
  }
}

}  // namespace
}  // namespace tact

// The GPU kernels of Softmax, LogSoftmax and
// SparseSoftmaxCrossEntropyWithLogits against the CPU kernels, and what a
// bad label does on each side: int32 labels (host memory) fail the step
// like the CPU kernel; int64 labels (device memory) give a NaN row, as in
// TensorFlow's GPU kernel. Skipped without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/gpu/gpu_test_util.h"
#include "tests/kernels/kernel_test_util.h"

namespace tact {
namespace {

const std::vector<TensorShape> kShapes = {TensorShape({1, 1}), TensorShape({3, 10}),
                                          TensorShape({64, 1000}), TensorShape({2, 3, 129}),
                                          TensorShape({4096, 256}), TensorShape({2, 5000})};

TEST(GpuSoftmaxTest, SoftmaxAndLogSoftmaxMatchTheCpu) {
  TACT_REQUIRE_GPU();
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    for (size_t i = 0; i < kShapes.size(); ++i) {
      SCOPED_TRACE(std::string(op) + " " + kShapes[i].DebugString());
      // Logits up to +-40: exp would overflow float without the max shift.
      // Row sums of up to 5000 terms in another order: float differs in the last bits.
      test::ExpectGpuMatchesCpu(op, {test::Random<float>(kShapes[i], 80 + i, -40, 40)}, {}, 1e-4,
                                1e-5);
      test::ExpectGpuMatchesCpu(op, {test::Random<double>(kShapes[i], 80 + i, -40, 40)}, {},
                                1e-12, 1e-14);
    }
  }
}

template <typename Label>
Tensor Labels(int64_t batch, int64_t classes, uint32_t seed) {
  return test::Random<Label>(TensorShape({batch}), seed, 0, static_cast<double>(classes) - 1);
}

TEST(GpuSparseXentTest, LossAndBackpropMatchTheCpuForBothLabelTypes) {
  TACT_REQUIRE_GPU();
  for (const TensorShape& shape : {TensorShape({1, 1}), TensorShape({3, 10}),
                                   TensorShape({64, 1000}), TensorShape({4096, 10})}) {
    SCOPED_TRACE(shape.DebugString());
    const int64_t batch = shape.dim_size(0), classes = shape.dim_size(1);
    const Tensor f = test::Random<float>(shape, 90, -20, 20);
    const Tensor d = test::Random<double>(shape, 91, -20, 20);
    test::ExpectGpuMatchesCpu("SparseSoftmaxCrossEntropyWithLogits",
                              {f, Labels<int32_t>(batch, classes, 92)}, {}, 1e-4, 1e-5);
    test::ExpectGpuMatchesCpu("SparseSoftmaxCrossEntropyWithLogits",
                              {f, Labels<int64_t>(batch, classes, 93)}, {}, 1e-4, 1e-5);
    test::ExpectGpuMatchesCpu("SparseSoftmaxCrossEntropyWithLogits",
                              {d, Labels<int64_t>(batch, classes, 94)}, {}, 1e-12, 1e-14);
  }
}

TEST(GpuSparseXentTest, ABadInt32LabelFailsTheStepLikeTheCpu) {
  TACT_REQUIRE_GPU();
  StatusOr<std::vector<Tensor>> out = test::RunOpOnGpu(
      "SparseSoftmaxCrossEntropyWithLogits",
      {test::Random<float>(TensorShape({3, 4}), 1), Tensor::FromVector<int32_t>({0, 4, 1})});
  ASSERT_FALSE(out.ok());
  test::ExpectError(out.status(), Code::kInvalidArgument, "labels[1] = 4 is not in [0, 4)");
}

TEST(GpuSparseXentTest, ABadInt64LabelMakesItsRowNan) {
  TACT_REQUIRE_GPU();
  StatusOr<std::vector<Tensor>> out = test::RunOpOnGpu(
      "SparseSoftmaxCrossEntropyWithLogits",
      {test::Random<float>(TensorShape({3, 4}), 1), Tensor::FromVector<int64_t>({0, -1, 3})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const float* loss = (*out)[0].data<float>();
  const float* backprop = (*out)[1].data<float>();
  EXPECT_FALSE(std::isnan(loss[0]));
  EXPECT_TRUE(std::isnan(loss[1]));
  EXPECT_FALSE(std::isnan(loss[2]));
  for (int j = 0; j < 4; ++j) {
    EXPECT_FALSE(std::isnan(backprop[j]));
    EXPECT_TRUE(std::isnan(backprop[4 + j]));
  }
}

}  // namespace
}  // namespace tact

// The GPU kernels of Sum, Mean, Max, BiasAdd and BiasAddGrad against the
// CPU kernels: every reduction path (contiguous rows, columns, both cut
// into chunks, non-adjacent axes in several passes, empty reductions) and
// keep_dims. Skipped without a GPU.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/gpu/gpu_test_util.h"
#include "tests/kernels/kernel_test_util.h"

namespace tact {
namespace {

struct Case {
  TensorShape shape;
  std::vector<int32_t> axes;
};

const std::vector<Case> kCases = {
    {TensorShape({}), {}},
    {TensorShape({7}), {0}},
    {TensorShape({5, 7}), {}},
    {TensorShape({5, 7}), {1}},
    {TensorShape({5, 7}), {0}},
    {TensorShape({5, 7}), {-1, 0}},
    {TensorShape({2, 3, 4, 5}), {0, 2}},
    {TensorShape({2, 3, 4, 5}), {1, 3}},
    {TensorShape({2, 1, 4}), {1}},
    {TensorShape({1 << 20}), {0}},         // one long row, cut into chunks
    {TensorShape({1024, 1024}), {1}},
    {TensorShape({1024, 1024}), {0}},
    {TensorShape({3, 100000, 5}), {1}},    // few columns, long K: cut into chunks
    {TensorShape({0, 5}), {0}},            // empty: the identity (NaN for Mean)
    {TensorShape({0, 5}), {1}},
};

template <typename T>
void ExpectReductionsMatch(double rtol, double atol) {
  for (const char* op : {"Sum", "Mean", "Max"}) {
    for (bool keep_dims : {false, true}) {
      for (size_t i = 0; i < kCases.size(); ++i) {
        const Case& c = kCases[i];
        SCOPED_TRACE(std::string(op) + " " + c.shape.DebugString() + " axes " +
                     Tensor::FromVector<int32_t>(c.axes).DebugString() +
                     (keep_dims ? " keep_dims" : ""));
        test::ExpectGpuMatchesCpu(
            op, {test::Random<T>(c.shape, 60 + i), Tensor::FromVector<int32_t>(c.axes)},
            {{"keep_dims", AttrValue::Bool(keep_dims)}}, rtol, atol);
      }
    }
  }
}

TEST(GpuReductionTest, SumMeanAndMaxMatchTheCpu) {
  TACT_REQUIRE_GPU();
  // Sums of up to 2^20 terms in another order: float differs in the last bits.
  ExpectReductionsMatch<float>(1e-4, 1e-3);
  ExpectReductionsMatch<double>(1e-10, 1e-9);
}

TEST(GpuReductionTest, AnAxisOutOfRangeIsAnErrorNamingTheNode) {
  TACT_REQUIRE_GPU();
  StatusOr<std::vector<Tensor>> out = test::RunOpOnGpu(
      "Sum", {test::Random<float>(TensorShape({2, 3}), 1), Tensor::FromVector<int32_t>({2})});
  ASSERT_FALSE(out.ok());
  test::ExpectError(out.status(), Code::kInvalidArgument, "out of range");
  test::ExpectError(out.status(), Code::kInvalidArgument, "test_Sum");
}

TEST(GpuReductionTest, TheSameInputGivesTheSameBitsEveryTime) {
  TACT_REQUIRE_GPU();
  const std::vector<Tensor> in = {test::Random<float>(TensorShape({3, 100000, 5}), 5),
                                  Tensor::FromVector<int32_t>({1})};
  StatusOr<std::vector<Tensor>> a = test::RunOpOnGpu("Sum", in);
  StatusOr<std::vector<Tensor>> b = test::RunOpOnGpu("Sum", in);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE((*a)[0].BitwiseEqual((*b)[0]));
}

TEST(GpuBiasTest, BiasAddAndItsGradientMatchTheCpu) {
  TACT_REQUIRE_GPU();
  for (const TensorShape& shape : {TensorShape({7}), TensorShape({5, 3}), TensorShape({2, 4, 4, 6}),
                                   TensorShape({1 << 20, 10}), TensorShape({64, 4096}),
                                   TensorShape({0, 3})}) {
    SCOPED_TRACE(shape.DebugString());
    const int64_t c = shape.dim_size(shape.dims() - 1);
    test::ExpectGpuMatchesCpu("BiasAdd", {test::Random<float>(shape, 1),
                                          test::Random<float>(TensorShape({c}), 2)});
    test::ExpectGpuMatchesCpu("BiasAdd", {test::Random<double>(shape, 1),
                                          test::Random<double>(TensorShape({c}), 2)});
    test::ExpectGpuMatchesCpu("BiasAddGrad", {test::Random<float>(shape, 3)}, {}, 1e-4, 1e-3);
    test::ExpectGpuMatchesCpu("BiasAddGrad", {test::Random<double>(shape, 3)}, {}, 1e-10, 1e-9);
  }
}

TEST(GpuBiasTest, NchwIsRefusedClearly) {
  TACT_REQUIRE_GPU();
  StatusOr<std::vector<Tensor>> out = test::RunOpOnGpu(
      "BiasAdd", {test::Random<float>(TensorShape({2, 3}), 1),
                  test::Random<float>(TensorShape({3}), 2)},
      {{"data_format", AttrValue::String("NCHW")}});
  ASSERT_FALSE(out.ok());
  test::ExpectError(out.status(), Code::kInvalidArgument, "NCHW");
}

}  // namespace
}  // namespace tact

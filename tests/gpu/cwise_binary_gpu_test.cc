// The GPU kernels of the broadcasting binary ops and comparisons against
// the CPU kernels: equal shapes, a scalar on either side, broadcasts that
// fold to one, two and three dimensions, and a tensor of several thousand
// blocks. Skipped without a GPU.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "tests/gpu/gpu_test_util.h"
#include "tests/kernels/kernel_test_util.h"

namespace tact {
namespace {

const std::vector<std::pair<TensorShape, TensorShape>> kShapePairs = {
    {TensorShape({}), TensorShape({})},
    {TensorShape({5, 7}), TensorShape({5, 7})},
    {TensorShape({}), TensorShape({4, 3})},
    {TensorShape({4, 3}), TensorShape({1})},
    {TensorShape({4, 1, 3}), TensorShape({2, 1})},
    {TensorShape({2, 3, 4, 5}), TensorShape({3, 1, 5})},
    {TensorShape({6, 1, 4, 1}), TensorShape({1, 5, 1, 3})},
    {TensorShape({1 << 20}), TensorShape({1})},
    {TensorShape({1024, 1024}), TensorShape({1024})},
    {TensorShape({1024, 1}), TensorShape({1, 1024})},
};

template <typename T>
std::vector<Tensor> Inputs(const std::pair<TensorShape, TensorShape>& shapes, uint32_t seed) {
  return {test::Random<T>(shapes.first, seed, -4, 4), test::Random<T>(shapes.second, seed + 1, -4, 4)};
}

std::vector<Tensor> InputsOf(DataType dtype, const std::pair<TensorShape, TensorShape>& shapes,
                             uint32_t seed) {
  switch (dtype) {
    case DT_DOUBLE: return Inputs<double>(shapes, seed);
    case DT_HALF: return Inputs<half>(shapes, seed);
    case DT_BFLOAT16: return Inputs<bfloat16>(shapes, seed);
    case DT_INT64: return Inputs<int64_t>(shapes, seed);
    default: return Inputs<float>(shapes, seed);
  }
}

void ExpectAllMatch(const std::vector<const char*>& ops, const std::vector<DataType>& dtypes) {
  for (const char* op : ops) {
    for (DataType dtype : dtypes) {
      const double rtol = dtype == DT_HALF || dtype == DT_BFLOAT16 ? 1e-2 : 1e-6;
      for (size_t i = 0; i < kShapePairs.size(); ++i) {
        SCOPED_TRACE(std::string(op) + " " + DataTypeString(dtype) + " " +
                     kShapePairs[i].first.DebugString() + " and " +
                     kShapePairs[i].second.DebugString());
        test::ExpectGpuMatchesCpu(op, InputsOf(dtype, kShapePairs[i], 40 + 2 * i), {}, rtol, 0);
      }
    }
  }
}

TEST(GpuBinaryTest, ArithmeticMatchesTheCpu) {
  TACT_REQUIRE_GPU();
  ExpectAllMatch({"Add", "Sub", "Mul", "Maximum", "Minimum", "SquaredDifference"},
                 {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16, DT_INT64});
  ExpectAllMatch({"Div"}, {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16});
}

TEST(GpuBinaryTest, ComparisonsMatchTheCpu) {
  TACT_REQUIRE_GPU();
  ExpectAllMatch({"Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual"},
                 {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_INT64});
}

TEST(GpuBinaryTest, MaximumPropagatesANanInXOnlyAsOnTheCpu) {
  TACT_REQUIRE_GPU();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = Tensor::FromVector<float>({nan, 1, 2});
  const Tensor y = Tensor::FromVector<float>({0, nan, 3});
  test::ExpectGpuMatchesCpu("Maximum", {x, y});
  test::ExpectGpuMatchesCpu("Minimum", {x, y});
}

TEST(GpuBinaryTest, IncompatibleShapesAreAnErrorNamingTheNode) {
  TACT_REQUIRE_GPU();
  StatusOr<std::vector<Tensor>> out = test::RunOpOnGpu(
      "Add", {test::Random<float>(TensorShape({2, 3}), 1),
              test::Random<float>(TensorShape({4}), 2)});
  ASSERT_FALSE(out.ok());
  test::ExpectError(out.status(), Code::kInvalidArgument, "incompatible shapes");
  test::ExpectError(out.status(), Code::kInvalidArgument, "test_Add");
}

TEST(GpuBinaryTest, ABroadcastOfMoreFoldedDimensionsThanTheKernelWalksIsAClearError) {
  TACT_REQUIRE_GPU();
  // Every dimension flips which side is broadcast: nothing folds.
  const TensorShape xs({2, 1, 2, 1, 2, 1, 2, 1}), ys({1, 2, 1, 2, 1, 2, 1, 2});
  StatusOr<std::vector<Tensor>> out =
      test::RunOpOnGpu("Mul", {test::Random<float>(xs, 1), test::Random<float>(ys, 2)});
  ASSERT_FALSE(out.ok());
  test::ExpectError(out.status(), Code::kInvalidArgument, "at most 6");
  test::ExpectError(out.status(), Code::kInvalidArgument, "test_Mul");
}

}  // namespace
}  // namespace tact

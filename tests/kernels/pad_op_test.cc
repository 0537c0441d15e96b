#include <gtest/gtest.h>

#include "tests/kernels/array_test_util.h"

namespace tact {
namespace {

using test::Ints;

// out[idx] = x[idx - before] inside, a default element outside.
Tensor PadRef(const Tensor& x, const std::vector<int64_t>& pads) {
  std::vector<int64_t> dims;
  for (int d = 0; d < x.dims(); ++d) dims.push_back(x.dim_size(d) + pads[2 * d] + pads[2 * d + 1]);
  return test::MapReference(x.dtype(), TensorShape(dims), {&x}, [&](std::vector<int64_t> idx) {
    for (size_t d = 0; d < idx.size(); ++d) {
      idx[d] -= pads[2 * d];
      if (idx[d] < 0 || idx[d] >= x.dim_size(d)) return std::make_pair(-1, int64_t{0});
    }
    return std::make_pair(0, test::Ravel(idx, x.shape().dim_sizes()));
  });
}

TEST(PadOpTest, RandomPaddingsOnSeveralRanks) {
  std::mt19937 gen(3);
  const TensorShape shapes[] = {{5}, {3, 4}, {2, 3, 4}, {2, 1, 3, 2}, {0, 3}, {300, 100}};
  uint32_t seed = 1;
  for (const TensorShape& s : shapes) {
    for (DataType t : {DT_FLOAT, DT_INT64, DT_STRING, DT_BOOL, DT_COMPLEX128}) {
      std::vector<int64_t> pads;
      for (int d = 0; d < 2 * s.dims(); ++d) pads.push_back(gen() % 3);
      Tensor x = test::RandomAny(t, s, seed++);
      const DataType pt = seed % 2 ? DT_INT32 : DT_INT64;
      test::ExpectTensorEq(
          test::RunOne("Pad", {x, Ints(pads, pt, {s.dims(), 2})}), PadRef(x, pads));
    }
  }
}

TEST(PadOpTest, ScalarAndZeroPadding) {
  Tensor s = test::Random<float>({}, 1);
  test::ExpectTensorEq(test::RunOne("Pad", {s, Ints({}, DT_INT32, {0, 2})}), s);
  Tensor m = test::Random<double>({2, 3}, 2);
  test::ExpectTensorEq(test::RunOne("Pad", {m, Ints({0, 0, 0, 0}, DT_INT32, {2, 2})}), m);
}

TEST(PadOpTest, BadPaddings) {
  Tensor x = test::Random<float>({2, 3}, 1);
  test::ExpectError(test::RunOp("Pad", {x, Ints({1, 1, 1, 1, 1, 1}, DT_INT32, {3, 2})}).status(),
                    Code::kInvalidArgument,
                    "paddings must have shape [2,2] for input of shape [2,3], got shape [3,2]");
  test::ExpectError(test::RunOp("Pad", {x, Ints({1, 1, 1, 1})}).status(), Code::kInvalidArgument,
                    "got shape [4]");
  test::ExpectError(test::RunOp("Pad", {x, Ints({1, 1, 1, 1, 1, 1}, DT_INT32, {2, 3})}).status(),
                    Code::kInvalidArgument, "got shape [2,3]");
  test::ExpectError(test::RunOp("Pad", {x, Ints({1, 0, -1, 2}, DT_INT32, {2, 2})}).status(),
                    Code::kInvalidArgument, "paddings must be >= 0, got [-1,2] for dimension 1");
  test::ExpectError(
      test::RunOp("Pad", {x, Ints({0, 0, 0, INT64_MAX}, DT_INT64, {2, 2})}).status(),
      Code::kInvalidArgument, "padding dimension 1 overflows");
}

}  // namespace
}  // namespace tact

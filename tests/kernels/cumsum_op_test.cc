// Cumsum against a plain loop in double, along every axis, with and
// without exclusive and reverse; integers wrap; the same bits on any
// number of threads.
#include <gtest/gtest.h>

#include <vector>

#include "tests/kernels/cwise_test_util.h"

namespace tact {
namespace {

std::vector<double> Reference(const Tensor& x, int axis, bool exclusive, bool reverse) {
  const std::vector<double> v = test::ToDoubles(x);
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= x.dim_size(d);
  for (int d = axis + 1; d < x.dims(); ++d) inner *= x.dim_size(d);
  const int64_t n = x.dim_size(axis);
  std::vector<double> out(v.size());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j) {
      double sum = 0;
      for (int64_t step = 0; step < n; ++step) {
        const int64_t i = reverse ? n - 1 - step : step;
        const int64_t at = (o * n + i) * inner + j;
        if (exclusive) out[at] = sum;
        sum += v[at];
        if (!exclusive) out[at] = sum;
      }
    }
  }
  return out;
}

TEST(CumsumTest, MatchesAPlainLoopAlongEveryAxis) {
  uint32_t seed = 1;
  for (const TensorShape& shape : {TensorShape({7}), TensorShape({3, 4}), TensorShape({2, 3, 5}),
                                   TensorShape({2, 0, 3})}) {
    for (int axis = -shape.dims(); axis < shape.dims(); ++axis) {
      for (bool exclusive : {false, true}) {
        for (bool reverse : {false, true}) {
          SCOPED_TRACE(shape.DebugString() + " axis " + std::to_string(axis) +
                       (exclusive ? " exclusive" : "") + (reverse ? " reverse" : ""));
          Tensor x = test::Random<double>(shape, seed++);
          Tensor out = test::RunOne("Cumsum", {x, Tensor::Scalar<int32_t>(axis)},
                                    {{"exclusive", AttrValue::Bool(exclusive)},
                                     {"reverse", AttrValue::Bool(reverse)}});
          const int a = axis < 0 ? axis + shape.dims() : axis;
          test::ExpectClose(out, shape, Reference(x, a, exclusive, reverse), 1e-14, 1e-14);
        }
      }
    }
  }
}

TEST(CumsumTest, IntegersWrapAndSixteenBitTypesSumInFloat) {
  Tensor i = test::RunOne("Cumsum", {Tensor::FromVector<int32_t>({2147483647, 1, 1}),
                                     Tensor::Scalar<int64_t>(0)});
  EXPECT_EQ(i.data<int32_t>()[1], -2147483647 - 1);
  EXPECT_EQ(i.data<int32_t>()[2], -2147483647);
  // 0.1 added 300 times: a half accumulator would stall near 32.
  Tensor h(DT_HALF, {300});
  for (int k = 0; k < 300; ++k) h.data<half>()[k] = half(0.1f);
  Tensor c = test::RunOne("Cumsum", {h, Tensor::Scalar<int32_t>(0)});
  EXPECT_NEAR(static_cast<float>(c.data<half>()[299]), 30.0f, 0.05f);
}

TEST(CumsumTest, BadAxesAreErrorsAndThreadsChangeNoBits) {
  auto out = test::RunOp("Cumsum", {test::Random<float>({2, 3}, 1), Tensor::Scalar<int32_t>(2)});
  test::ExpectError(out.status(), Code::kInvalidArgument, "axis 2 is out of range");
  out = test::RunOp("Cumsum", {test::Random<float>({2, 3}, 1), Tensor::FromVector<int32_t>({0})});
  test::ExpectError(out.status(), Code::kInvalidArgument, "axis must be a scalar");
  Tensor x = test::Random<float>({4001, 37}, 5);
  Tensor one = test::RunOne("Cumsum", {x, Tensor::Scalar<int32_t>(1)}, {}, 1);
  Tensor four = test::RunOne("Cumsum", {x, Tensor::Scalar<int32_t>(1)}, {}, 4);
  EXPECT_TRUE(one.BitwiseEqual(four));
}

}  // namespace
}  // namespace tact

// ArgMax and ArgMin against a plain-loop reference, on every axis of
// several shapes, with ties, NaN, both output types and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace tact {
namespace {

// First index of the best value along `axis`, as doubles.
std::vector<double> Reference(const Tensor& x, int axis, bool is_max) {
  const std::vector<double> v = test::ToDoubles(x);
  int64_t A = 1, N = 1;
  for (int d = 0; d < axis; ++d) A *= x.dim_size(d);
  for (int d = axis + 1; d < x.dims(); ++d) N *= x.dim_size(d);
  const int64_t K = x.dim_size(axis);
  std::vector<double> out;
  for (int64_t a = 0; a < A; ++a) {
    for (int64_t n = 0; n < N; ++n) {
      int64_t best = 0;
      for (int64_t k = 1; k < K; ++k) {
        const double c = v[(a * K + k) * N + n], b = v[(a * K + best) * N + n];
        if (is_max ? c > b : c < b) best = k;
      }
      out.push_back(static_cast<double>(best));
    }
  }
  return out;
}

template <typename T>
void CheckArg(const std::string& op) {
  const std::vector<TensorShape> shapes = {{7}, {3, 4}, {2, 3, 5}, {4, 1, 6}, {0, 3}, {2, 300, 3}, {40, 1500}};
  uint32_t seed = 5;
  for (const TensorShape& shape : shapes) {
    for (int axis = -shape.dims(); axis < shape.dims(); ++axis) {
      const int a = axis < 0 ? axis + shape.dims() : axis;
      if (shape.dim_size(a) == 0) continue;
      Tensor x = test::Random<T>(shape, seed++);  // small integers: plenty of ties
      for (DataType out_type : {DT_INT32, DT_INT64}) {
        auto out = test::RunOp(op, {x, Tensor::Scalar<int64_t>(axis)},
                               {{"output_type", AttrValue::Type(out_type)}});
        ASSERT_TRUE(out.ok()) << out.status().ToString();
        ASSERT_EQ((*out)[0].dtype(), out_type);
        TensorShape want = shape;
        want.RemoveDim(a);
        SCOPED_TRACE(op + " " + shape.DebugString() + " axis " + std::to_string(axis));
        test::ExpectClose((*out)[0], want, Reference(x, a, op == "ArgMax"), 0, 0);
      }
    }
  }
}

TEST(ArgMaxOpTest, MatchesReference) {
  CheckArg<float>("ArgMax");
  CheckArg<double>("ArgMax");
  CheckArg<int32_t>("ArgMax");
  CheckArg<int64_t>("ArgMax");
}

TEST(ArgMinOpTest, MatchesReference) {
  CheckArg<float>("ArgMin");
  CheckArg<double>("ArgMin");
  CheckArg<int32_t>("ArgMin");
  CheckArg<int64_t>("ArgMin");
}

TEST(ArgMaxOpTest, TiesGiveTheFirstIndexAndDefaultIsInt64) {
  Tensor x = Tensor::FromVector<float>({1, 5, 5, 2, 0, 0, 0, 0}, TensorShape({2, 4}));
  auto out = test::RunOp("ArgMax", {x, Tensor::Scalar<int32_t>(1)});
  ASSERT_TRUE(out.ok());
  ASSERT_EQ((*out)[0].dtype(), DT_INT64);
  test::ExpectClose((*out)[0], {2}, {1, 0}, 0, 0);
  auto mn = test::RunOp("ArgMin", {x, Tensor::Scalar<int32_t>(0)});
  ASSERT_TRUE(mn.ok());
  test::ExpectClose((*mn)[0], {4}, {1, 1, 1, 1}, 0, 0);
}

TEST(ArgMaxOpTest, FirstNaNWins) {
  Tensor x = Tensor::FromVector<float>({1, NAN, 9, NAN});
  for (const char* op : {"ArgMax", "ArgMin"}) {
    auto out = test::RunOp(op, {x, Tensor::Scalar<int32_t>(0)});
    ASSERT_TRUE(out.ok());
    EXPECT_EQ((*out)[0].scalar<int64_t>(), 1) << op;
  }
}

TEST(ArgMaxOpTest, Errors) {
  Tensor x = test::Random<float>({2, 3}, 1);
  test::ExpectError(test::RunOp("ArgMax", {x, Tensor::Scalar<int32_t>(2)}).status(),
                    Code::kInvalidArgument, "dimension 2 is out of range for a tensor of rank 2");
  test::ExpectError(test::RunOp("ArgMin", {x, Tensor::FromVector<int32_t>({0})}).status(),
                    Code::kInvalidArgument, "dimension must be a scalar, got shape [1]");
  test::ExpectError(test::RunOp("ArgMax", {Tensor::Scalar<float>(1), Tensor::Scalar<int32_t>(0)})
                        .status(),
                    Code::kInvalidArgument, "out of range for a tensor of rank 0");
  test::ExpectError(test::RunOp("ArgMax", {Tensor(DT_FLOAT, {3, 0}), Tensor::Scalar<int32_t>(1)})
                        .status(),
                    Code::kInvalidArgument, "dimension 1 is empty in input of shape [3,0]");
  test::ExpectError(test::RunOp("ArgMax", {x, Tensor::Scalar<float>(0)}).status(),
                    Code::kInvalidArgument, "attr 'Tidx' = float");
}

}  // namespace
}  // namespace tact

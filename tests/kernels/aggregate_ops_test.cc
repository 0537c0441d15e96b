#include <gtest/gtest.h>

#include "graph/ops/core_ops.h"
#include "graph/ops/math_ops.h"
#include "tests/kernels/cwise_test_util.h"

namespace tact {
namespace {

std::vector<double> RefSum(const std::vector<Tensor>& xs) {
  std::vector<double> want(xs[0].NumElements(), 0.0);
  for (const Tensor& x : xs) {
    const std::vector<double> d = test::ToDoubles(x);
    for (size_t i = 0; i < want.size(); ++i) want[i] += d[i];
  }
  return want;
}

template <typename T>
void CheckAddN() {
  uint32_t seed = 1;
  for (const TensorShape& shape : std::vector<TensorShape>{{}, {0}, {5}, {3, 4}, {2, 0, 2}}) {
    for (int n : {1, 2, 3, 5}) {
      SCOPED_TRACE(DataTypeString(DataTypeToEnum<T>::value) + " " + shape.DebugString() +
                   " N=" + std::to_string(n));
      std::vector<Tensor> xs;
      for (int i = 0; i < n; ++i) xs.push_back(test::Random<T>(shape, seed++));
      Tensor sum = test::RunOne("AddN", xs);
      ASSERT_EQ(sum.dtype(), DataTypeToEnum<T>::value);
      test::ExpectClose(sum, shape, RefSum(xs), 1e-6, 1e-6);
    }
  }
}

TEST(AddNOpTest, MatchesReference) {
  CheckAddN<float>();
  CheckAddN<double>();
  CheckAddN<int32_t>();
  CheckAddN<int64_t>();
}

TEST(AddNOpTest, OneInputIsPassedOnWithoutACopy) {
  Tensor x = test::Random<float>({4}, 1);
  EXPECT_TRUE(test::RunOne("AddN", {x}).SharesBufferWith(x));
}

TEST(AddNOpTest, MismatchedInputsAreErrors) {
  auto out = test::RunOp("AddN", {test::Random<float>({2, 3}, 1), test::Random<float>({2, 3}, 2),
                                  test::Random<float>({3}, 3)});
  test::ExpectError(out.status(), Code::kInvalidArgument,
                    "inputs must have the same shape: input 0 is [2,3] but input 2 is [3]");
  // No broadcasting, not even of a scalar.
  out = test::RunOp("AddN", {test::Random<float>({2}, 1), Tensor::Scalar<float>(1)});
  test::ExpectError(out.status(), Code::kInvalidArgument, "input 1 is []");
  out = test::RunOp("AddN", {Tensor::Scalar<float>(1), Tensor::Scalar<int32_t>(1)});
  test::ExpectError(out.status(), Code::kInvalidArgument, "must be float, given int32");
  out = test::RunOp("AddN", {});
  EXPECT_FALSE(out.ok());
  test::ExpectError(test::InferShape("AddN", {PartialTensorShape({2, -1}), PartialTensorShape({3, 4})})
                        .status(),
                    Code::kInvalidArgument, "shapes must be equal");
  auto merged = test::InferShape("AddN", {PartialTensorShape({2, -1}), PartialTensorShape::Unknown(),
                                          PartialTensorShape({-1, 4})});
  ASSERT_TRUE(merged.ok());
  EXPECT_EQ(*merged, PartialTensorShape({2, 4}));
}

TEST(AddNOpTest, ThreadedMatchesSingleThreadBitForBit) {
  std::vector<Tensor> xs;
  for (int i = 0; i < 4; ++i) xs.push_back(test::Random<float>({300, 1000}, 10 + i));
  Tensor one = test::RunOne("AddN", xs, {}, 1);
  Tensor four = test::RunOne("AddN", xs, {}, 4);
  EXPECT_TRUE(one.BitwiseEqual(four));
  test::ExpectClose(four, {300, 1000}, RefSum(xs), 1e-5, 1e-6);
}

TEST(AddNOpTest, BuilderInfersN) {
  Scope s = Scope::NewRootScope();
  Output x = Placeholder(s, DT_DOUBLE);
  Output sum = AddN(s, {x, x, Neg(s, x)});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(sum.node->op(), "AddN");
  EXPECT_EQ(sum.node->attrs().at("N").i(), 3);
  EXPECT_EQ(sum.type(), DT_DOUBLE);
}

}  // namespace
}  // namespace tact

#include "kernels/cpu/broadcast.h"

#include <gtest/gtest.h>

#include "graph/ops/core_ops.h"
#include "graph/ops/math_ops.h"
#include "tests/kernels/cwise_test_util.h"

namespace tact {
namespace {

using Vec = BCast::Vec;

TEST(BCastTest, FoldsAndStridesTheBroadcast) {
  BCast b({4, 1, 3}, {2, 1});
  ASSERT_TRUE(b.IsValid());
  EXPECT_EQ(b.output_shape(), (Vec{4, 2, 3}));
  EXPECT_EQ(b.result_shape(), (Vec{4, 2, 3}));
  EXPECT_EQ(b.x_reshape(), (Vec{4, 1, 3}));
  EXPECT_EQ(b.y_reshape(), (Vec{1, 2, 1}));
  EXPECT_EQ(b.x_strides(), (Vec{3, 0, 1}));
  EXPECT_EQ(b.y_strides(), (Vec{0, 1, 0}));
  EXPECT_EQ(b.grad_x_reduce_idx(), (Vec{1}));
  EXPECT_EQ(b.grad_y_reduce_idx(), (Vec{0, 2}));
}

TEST(BCastTest, MergesDimensionsBroadcastAlike) {
  // [2,3,4] + [4]: the leading two dims of y are broadcast alike and fold into one.
  BCast b({2, 3, 4}, {4});
  EXPECT_EQ(b.output_shape(), (Vec{2, 3, 4}));
  EXPECT_EQ(b.result_shape(), (Vec{6, 4}));
  EXPECT_EQ(b.x_strides(), (Vec{4, 1}));
  EXPECT_EQ(b.y_strides(), (Vec{0, 1}));
  EXPECT_EQ(b.grad_x_reduce_idx(), Vec{});
  EXPECT_EQ(b.grad_y_reduce_idx(), (Vec{0, 1}));
  // Equal shapes fold to one dimension and need no reduction.
  BCast same({2, 3, 4}, {2, 3, 4});
  EXPECT_EQ(same.result_shape(), (Vec{24}));
  EXPECT_EQ(same.grad_x_reduce_idx(), Vec{});
  EXPECT_EQ(same.grad_y_reduce_idx(), Vec{});
  // Output dims of 1 disappear; an all-ones result is [1].
  BCast ones({1, 1}, {1});
  EXPECT_EQ(ones.output_shape(), (Vec{1, 1}));
  EXPECT_EQ(ones.result_shape(), (Vec{1}));
  EXPECT_EQ(ones.grad_x_reduce_idx(), (Vec{0, 1}));
  EXPECT_EQ(ones.grad_y_reduce_idx(), (Vec{0, 1}));
}

TEST(BCastTest, ScalarsEmptyAndInvalid) {
  BCast s({}, {2, 3});
  EXPECT_EQ(s.output_shape(), (Vec{2, 3}));
  EXPECT_EQ(s.grad_x_reduce_idx(), (Vec{0, 1}));
  EXPECT_EQ(s.grad_y_reduce_idx(), Vec{});
  BCast scalars({}, {});
  EXPECT_TRUE(scalars.IsValid());
  EXPECT_EQ(scalars.output_shape(), Vec{});
  EXPECT_EQ(scalars.result_shape(), Vec{1});
  BCast empty({0, 3}, {1, 3});
  EXPECT_EQ(empty.output_shape(), (Vec{0, 3}));
  EXPECT_EQ(empty.grad_y_reduce_idx(), (Vec{0}));
  BCast zero_vs_one({1}, {0});
  EXPECT_EQ(zero_vs_one.output_shape(), (Vec{0}));
  EXPECT_FALSE(BCast({2, 3}, {4}).IsValid());
  EXPECT_FALSE(BCast({0}, {2}).IsValid());
  EXPECT_EQ(BCast::ShapeString({2, 3}), "[2,3]");
  EXPECT_EQ(BCast::ShapeString({}), "[]");
}

template <typename T>
std::vector<Tensor> GradArgs(const std::vector<T>& s0, const std::vector<T>& s1) {
  auto out = test::RunOp("BroadcastGradientArgs", {Tensor::FromVector<T>(s0), Tensor::FromVector<T>(s1)});
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? *out : std::vector<Tensor>{};
}

template <typename T>
void ExpectGradArgs(const std::vector<T>& s0, const std::vector<T>& s1, const std::vector<T>& r0,
                    const std::vector<T>& r1) {
  SCOPED_TRACE(BCast::ShapeString(Vec(s0.begin(), s0.end())) + " and " +
               BCast::ShapeString(Vec(s1.begin(), s1.end())));
  std::vector<Tensor> r = GradArgs<T>(s0, s1);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].dtype(), DataTypeToEnum<T>::value);
  EXPECT_TRUE(r[0].BitwiseEqual(Tensor::FromVector<T>(r0))) << r[0].DebugString();
  EXPECT_TRUE(r[1].BitwiseEqual(Tensor::FromVector<T>(r1))) << r[1].DebugString();
}

template <typename T>
void CheckGradArgs() {
  ExpectGradArgs<T>({2, 3, 5}, {1}, {}, {0, 1, 2});
  ExpectGradArgs<T>({2, 3}, {2, 3}, {}, {});
  ExpectGradArgs<T>({4, 1, 3}, {2, 1}, {1}, {0, 2});
  ExpectGradArgs<T>({2, 1}, {1, 3}, {1}, {0});
  ExpectGradArgs<T>({1, 1}, {1, 2}, {0, 1}, {0});
  ExpectGradArgs<T>({}, {2, 3}, {0, 1}, {});
  ExpectGradArgs<T>({}, {}, {}, {});
  ExpectGradArgs<T>({0, 3}, {3}, {}, {0});
}

TEST(BroadcastGradientArgsTest, MatchesTensorFlow) {
  CheckGradArgs<int32_t>();
  CheckGradArgs<int64_t>();
}

TEST(BroadcastGradientArgsTest, BadInputsAreErrors) {
  auto run = [](const Tensor& a, const Tensor& b) {
    return test::RunOp("BroadcastGradientArgs", {a, b}).status();
  };
  test::ExpectError(run(Tensor::FromVector<int32_t>({2, 3}), Tensor::FromVector<int32_t>({4})),
                    Code::kInvalidArgument, "incompatible shapes for broadcasting: [2,3] and [4]");
  test::ExpectError(run(Tensor::Scalar<int32_t>(2), Tensor::FromVector<int32_t>({4})),
                    Code::kInvalidArgument, "input s0 must be a vector, got shape []");
  test::ExpectError(run(Tensor::FromVector<int64_t>({2}), Tensor::FromVector<int64_t>({-1})),
                    Code::kInvalidArgument, "input s1 has a negative dimension -1");
  test::ExpectError(run(Tensor::FromVector<float>({2}), Tensor::FromVector<float>({2})),
                    Code::kInvalidArgument, "not in the allowed set");
}

TEST(BroadcastGradientArgsTest, BuilderHasTwoOutputsOfUnknownLength) {
  Scope s = Scope::NewRootScope();
  std::vector<Output> r = BroadcastGradientArgs(s, Placeholder(s, DT_INT32), Placeholder(s, DT_INT32));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[1].index, 1);
  EXPECT_EQ(r[0].type(), DT_INT32);
  auto shape = test::InferShape("BroadcastGradientArgs", {PartialTensorShape({3}), PartialTensorShape({2})},
                                {{"T", AttrValue::Type(DT_INT32)}}, 2);
  ASSERT_TRUE(shape.ok());
  EXPECT_EQ(*shape, PartialTensorShape({-1}));
}

}  // namespace
}  // namespace tact

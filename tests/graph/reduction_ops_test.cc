// Shape functions and builders of the reductions and ArgMax / ArgMin.
#include "graph/ops/reduction_ops.h"

#include <gtest/gtest.h>

#include "graph/node_properties.h"
#include "graph/op_registry.h"
#include "graph/ops/core_ops.h"

namespace tact {
namespace {

// Output 0's shape from `op`'s shape function; `axes` (input 1) is a
// constant when given.
StatusOr<PartialTensorShape> Infer(const std::string& op, PartialTensorShape input,
                                   const Tensor* axes, PartialTensorShape axes_shape = {},
                                   AttrMap attrs = {}) {
  TACT_ASSIGN_OR_RETURN(const OpDef* def, OpRegistry::Global()->LookUp(op));
  AddDefaultAttrs(*def, &attrs);
  if (axes != nullptr) axes_shape = axes->shape();
  InferenceContext c(&attrs, {input, axes_shape}, {nullptr, axes}, 1);
  TACT_RETURN_IF_ERROR(def->shape_fn(&c));
  return c.output(0);
}

AttrMap KeepDims() { return {{"keep_dims", AttrValue::Bool(true)}}; }

TEST(ReductionShapeTest, ConstantAxes) {
  Tensor a1 = Tensor::Scalar<int32_t>(1);
  Tensor a02 = Tensor::FromVector<int64_t>({0, -1});
  Tensor none(DT_INT32, {0});
  EXPECT_EQ(*Infer("Sum", PartialTensorShape({2, -1, 4}), &a1), PartialTensorShape({2, 4}));
  EXPECT_EQ(*Infer("Mean", PartialTensorShape({2, -1, 4}), &a1, {}, KeepDims()),
            PartialTensorShape({2, 1, 4}));
  EXPECT_EQ(*Infer("Max", PartialTensorShape({2, 3, 4}), &a02), PartialTensorShape({3}));
  EXPECT_EQ(*Infer("Prod", PartialTensorShape({2, 3, 4}), &a02, {}, KeepDims()),
            PartialTensorShape({1, 3, 1}));
  EXPECT_EQ(*Infer("Min", PartialTensorShape({}), &none), PartialTensorShape({}));
  EXPECT_TRUE(Infer("Sum", PartialTensorShape::Unknown(), &a1)->unknown_rank());
}

TEST(ReductionShapeTest, UnknownAxes) {
  EXPECT_TRUE(Infer("Sum", PartialTensorShape({2, 3}), nullptr, PartialTensorShape({1}))
                  ->unknown_rank());
  EXPECT_EQ(*Infer("Sum", PartialTensorShape({2, 3}), nullptr, PartialTensorShape({-1}), KeepDims()),
            PartialTensorShape({-1, -1}));
  // An axis vector known to be empty reduces nothing.
  EXPECT_EQ(*Infer("Sum", PartialTensorShape({2, 3}), nullptr, PartialTensorShape({0})),
            PartialTensorShape({2, 3}));
}

TEST(ReductionShapeTest, BadAxesAreErrors) {
  Tensor a2 = Tensor::Scalar<int32_t>(2);
  Tensor dup = Tensor::FromVector<int32_t>({0, -2});
  EXPECT_EQ(Infer("Sum", PartialTensorShape({2, 3}), &a2).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Infer("Sum", PartialTensorShape({2, 3}), &dup).status().code(), Code::kInvalidArgument);
}

TEST(ReductionShapeTest, ArgMaxDropsTheDimension) {
  Tensor d = Tensor::Scalar<int32_t>(-1);
  EXPECT_EQ(*Infer("ArgMax", PartialTensorShape({2, -1, 4}), &d), PartialTensorShape({2, -1}));
  EXPECT_EQ(*Infer("ArgMin", PartialTensorShape({2, 3}), nullptr, PartialTensorShape({})),
            PartialTensorShape({-1}));
  Tensor bad = Tensor::Scalar<int32_t>(3);
  EXPECT_EQ(Infer("ArgMax", PartialTensorShape({2, 3}), &bad).status().code(),
            Code::kInvalidArgument);
}

TEST(ReductionBuilderTest, BuildsNodes) {
  Scope s = Scope::NewRootScope();
  Output x = Placeholder(s, DT_FLOAT);
  Output sum = Sum(s, x, {0, 1}, true);
  Output mean = Mean(s, x, 0);
  Output arg = ArgMax(s, x, 1);
  Output arg32 = ArgMin(s, x, int64_t{1}, DT_INT32);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(sum.node->op(), "Sum");
  EXPECT_EQ(sum.type(), DT_FLOAT);
  EXPECT_TRUE(sum.node->attrs().at("keep_dims").b());
  EXPECT_EQ(mean.node->op(), "Mean");
  EXPECT_EQ(Max(s, x, 0).node->op(), "Max");
  EXPECT_EQ(Min(s, x, 0).node->op(), "Min");
  EXPECT_EQ(Prod(s, x, 0).node->op(), "Prod");
  EXPECT_EQ(arg.type(), DT_INT64);
  EXPECT_EQ(arg32.type(), DT_INT32);
  EXPECT_EQ(arg32.node->attrs().at("Tidx").type(), DT_INT64);
}

}  // namespace
}  // namespace tact

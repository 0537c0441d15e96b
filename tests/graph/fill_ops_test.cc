// Shape functions and builders of Fill, ZerosLike, OnesLike, Range, OneHot.
#include "graph/ops/fill_ops.h"

#include <gtest/gtest.h>

#include "graph/node_properties.h"
#include "graph/op_registry.h"
#include "graph/ops/core_ops.h"

namespace tact {
namespace {

StatusOr<PartialTensorShape> Infer(const std::string& op, std::vector<PartialTensorShape> inputs,
                                   std::vector<const Tensor*> tensors, AttrMap attrs = {}) {
  TACT_ASSIGN_OR_RETURN(const OpDef* def, OpRegistry::Global()->LookUp(op));
  AddDefaultAttrs(*def, &attrs);
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i] != nullptr) inputs[i] = tensors[i]->shape();
  }
  InferenceContext c(&attrs, inputs, tensors, 1);
  TACT_RETURN_IF_ERROR(def->shape_fn(&c));
  return c.output(0);
}

TEST(FillShapeTest, FromConstantOrLengthOfDims) {
  Tensor dims = Tensor::FromVector<int32_t>({2, 0, 3});
  EXPECT_EQ(*Infer("Fill", {{}, PartialTensorShape({})}, {&dims, nullptr}),
            PartialTensorShape({2, 0, 3}));
  EXPECT_EQ(*Infer("Fill", {PartialTensorShape({2}), PartialTensorShape({})}, {}),
            PartialTensorShape({-1, -1}));
  EXPECT_TRUE(Infer("Fill", {PartialTensorShape({-1}), PartialTensorShape({})}, {})->unknown_rank());
  Tensor negative = Tensor::FromVector<int64_t>({2, -1});
  EXPECT_EQ(Infer("Fill", {{}, PartialTensorShape({})}, {&negative, nullptr}).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(Infer("Fill", {PartialTensorShape({2}), PartialTensorShape({2})}, {}).status().code(),
            Code::kInvalidArgument);
}

TEST(FillShapeTest, LikeOpsKeepTheShape) {
  EXPECT_EQ(*Infer("ZerosLike", {PartialTensorShape({-1, 3})}, {}), PartialTensorShape({-1, 3}));
  EXPECT_EQ(*Infer("OnesLike", {PartialTensorShape({})}, {}), PartialTensorShape({}));
}

TEST(FillShapeTest, RangeSizeFromConstants) {
  const PartialTensorShape s({});
  Tensor start = Tensor::Scalar<int32_t>(1), limit = Tensor::Scalar<int32_t>(10);
  Tensor delta = Tensor::Scalar<int32_t>(4), zero = Tensor::Scalar<int32_t>(0);
  EXPECT_EQ(*Infer("Range", {s, s, s}, {&start, &limit, &delta}), PartialTensorShape({3}));
  EXPECT_EQ(*Infer("Range", {s, s, s}, {&start, nullptr, &delta}), PartialTensorShape({-1}));
  EXPECT_EQ(Infer("Range", {s, s, s}, {&start, &limit, &zero}).status().code(),
            Code::kInvalidArgument);
  Tensor fs = Tensor::Scalar<float>(0), fl = Tensor::Scalar<float>(1), fd = Tensor::Scalar<float>(0.3f);
  EXPECT_EQ(*Infer("Range", {s, s, s}, {&fs, &fl, &fd}, {{"Tidx", AttrValue::Type(DT_FLOAT)}}),
            PartialTensorShape({4}));
  EXPECT_EQ(RangeSize(int64_t{0}, int64_t{-7}, int64_t{-2}).value(), 4);
}

TEST(FillShapeTest, OneHotInsertsDepth) {
  const PartialTensorShape s({});
  Tensor depth = Tensor::Scalar<int32_t>(5);
  EXPECT_EQ(*Infer("OneHot", {PartialTensorShape({2, -1}), s, s, s}, {nullptr, &depth}),
            PartialTensorShape({2, -1, 5}));
  EXPECT_EQ(*Infer("OneHot", {PartialTensorShape({2, 3}), s, s, s}, {nullptr, &depth},
                   {{"axis", AttrValue::Int(0)}}),
            PartialTensorShape({5, 2, 3}));
  EXPECT_EQ(*Infer("OneHot", {PartialTensorShape({2}), s, s, s}, {}),
            PartialTensorShape({2, -1}));
  EXPECT_EQ(Infer("OneHot", {PartialTensorShape({2}), s, s, s}, {}, {{"axis", AttrValue::Int(2)}})
                .status().code(),
            Code::kInvalidArgument);
}

TEST(FillBuilderTest, BuildsNodes) {
  Scope s = Scope::NewRootScope();
  Output fill = Fill(s, {2, 3}, 1.5f);
  Output range = Range(s, 0, 10, 2);
  Output labels = Placeholder(s, DT_INT64);
  Output hot = OneHot(s, labels, 10, 1.0f, 0.0f);
  Output zeros = ZerosLike(s, fill);
  Output ones = OnesLike(s, range);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(fill.node->op(), "Fill");
  EXPECT_EQ(fill.type(), DT_FLOAT);
  EXPECT_EQ(range.type(), DT_INT32);
  EXPECT_EQ(hot.type(), DT_FLOAT);
  EXPECT_EQ(hot.node->attrs().at("TI").type(), DT_INT64);
  EXPECT_EQ(zeros.node->op(), "ZerosLike");
  EXPECT_EQ(ones.type(), DT_INT32);
}

}  // namespace
}  // namespace tact

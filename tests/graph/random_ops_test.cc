// Shape functions and builders of the random ops.
#include "graph/ops/random_ops.h"

#include <gtest/gtest.h>

#include "graph/node_properties.h"
#include "graph/op_registry.h"

namespace tact {
namespace {

StatusOr<PartialTensorShape> Infer(const std::string& op, PartialTensorShape shape_shape,
                                   const Tensor* shape) {
  TACT_ASSIGN_OR_RETURN(const OpDef* def, OpRegistry::Global()->LookUp(op));
  AttrMap attrs = {{"dtype", AttrValue::Type(DT_FLOAT)}, {"T", AttrValue::Type(DT_INT32)}};
  AddDefaultAttrs(*def, &attrs);
  if (shape != nullptr) shape_shape = shape->shape();
  InferenceContext c(&attrs, {shape_shape}, {shape}, 1);
  TACT_RETURN_IF_ERROR(def->shape_fn(&c));
  return c.output(0);
}

TEST(RandomShapeTest, FromTheShapeInput) {
  Tensor shape = Tensor::FromVector<int32_t>({784, 100});
  for (const char* op : {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
    EXPECT_EQ(*Infer(op, {}, &shape), PartialTensorShape({784, 100})) << op;
    EXPECT_EQ(*Infer(op, PartialTensorShape({3}), nullptr), PartialTensorShape({-1, -1, -1}));
    EXPECT_TRUE(Infer(op, PartialTensorShape::Unknown(), nullptr)->unknown_rank());
  }
  Tensor negative = Tensor::FromVector<int32_t>({-1});
  EXPECT_EQ(Infer("RandomUniform", {}, &negative).status().code(), Code::kInvalidArgument);
}

TEST(RandomBuilderTest, BuildsStatefulNodes) {
  Scope s = Scope::NewRootScope();
  Output u = RandomUniform(s, {2, 3}, DT_DOUBLE, 1, 2);
  Output n = RandomStandardNormal(s, {4});
  Output t = TruncatedNormal(s, {784, 100}, DT_FLOAT, 7);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(u.node->op(), "RandomUniform");
  EXPECT_EQ(u.type(), DT_DOUBLE);
  EXPECT_EQ(u.node->attrs().at("seed2").i(), 2);
  EXPECT_EQ(n.type(), DT_FLOAT);
  EXPECT_EQ(t.node->attrs().at("seed").i(), 7);
  EXPECT_TRUE(t.node->IsStateful());
}

}  // namespace
}  // namespace tact

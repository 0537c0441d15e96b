// The array ops' builders and shape functions.
#include "graph/ops/array_ops.h"

#include <gtest/gtest.h>

#include "graph/node_properties.h"
#include "graph/op_registry.h"
#include "graph/ops/core_ops.h"

namespace tact {
namespace {

TEST(ArrayOpsBuilderTest, EveryBuilderAddsItsNode) {
  Scope s = Scope::NewRootScope();
  Output x = Placeholder(s, DT_FLOAT, {2, 3});
  Output names = Placeholder(s, DT_STRING);
  struct Case { Output out; const char* op; DataType type; };
  const Case cases[] = {
      {Reshape(s, x, {3, 2}), "Reshape", DT_FLOAT},
      {ExpandDims(s, x, 0), "ExpandDims", DT_FLOAT},
      {Squeeze(s, ExpandDims(s, x, 0), {0}), "Squeeze", DT_FLOAT},
      {Transpose(s, names, {1, 0}), "Transpose", DT_STRING},
      {Concat(s, {x, x, x}, 1), "ConcatV2", DT_FLOAT},
      {Slice(s, x, {0, 1}, {-1, 2}), "Slice", DT_FLOAT},
      {StridedSlice(s, x, {0}, {1}, {1}, 0, 0, 0, 0, 1), "StridedSlice", DT_FLOAT},
      {Pad(s, x, Tensor::FromVector<int32_t>({1, 1, 0, 0}, {2, 2})), "Pad", DT_FLOAT},
      {Tile(s, x, {2, 2}), "Tile", DT_FLOAT},
      {Gather(s, names, {0, 0}), "Gather", DT_STRING},
      {Pack(s, {x, x}, -1), "Pack", DT_FLOAT},
      {Shape(s, x, DT_INT64), "Shape", DT_INT64},
      {Size(s, x), "Size", DT_INT32},
      {Rank(s, names), "Rank", DT_INT32},
  };
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  for (const Case& c : cases) {
    ASSERT_TRUE(c.out.ok()) << c.op;
    EXPECT_EQ(c.out.node->op(), c.op);
    EXPECT_EQ(c.out.type(), c.type) << c.op;
  }
  EXPECT_EQ(cases[4].out.node->attrs().at("N").i(), 3);
  std::vector<Output> parts = Split(s, 1, x, 3);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[2].node->op(), "Split");
  EXPECT_EQ(parts[2].index, 2);
  std::vector<Output> rows = Unpack(s, x, 2);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].type(), DT_FLOAT);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
}

TEST(ArrayOpsBuilderTest, ConcatNeedsTwoValues) {
  Scope s = Scope::NewRootScope();
  Output x = Placeholder(s, DT_FLOAT);
  EXPECT_FALSE(Concat(s, {x}, 0).ok());
  EXPECT_FALSE(s.ok());
}

// Runs `op`'s shape function; a tensor given for an input is its constant value.
StatusOr<std::vector<PartialTensorShape>> Infer(const std::string& op,
                                                std::vector<PartialTensorShape> shapes,
                                                std::vector<const Tensor*> tensors = {},
                                                AttrMap attrs = {}, int num_outputs = 1) {
  TACT_ASSIGN_OR_RETURN(const OpDef* def, OpRegistry::Global()->LookUp(op));
  AddDefaultAttrs(*def, &attrs);
  InferenceContext c(&attrs, std::move(shapes), std::move(tensors), num_outputs);
  TACT_RETURN_IF_ERROR(def->shape_fn(&c));
  return c.outputs();
}

PartialTensorShape InferOne(const std::string& op, std::vector<PartialTensorShape> shapes,
                            std::vector<const Tensor*> tensors = {}, AttrMap attrs = {}) {
  auto out = Infer(op, std::move(shapes), std::move(tensors), std::move(attrs));
  EXPECT_TRUE(out.ok()) << op << ": " << out.status().ToString();
  return out.ok() ? (*out)[0] : PartialTensorShape();
}

Tensor Vec(std::vector<int32_t> v) { return Tensor::FromVector<int32_t>(v); }
Tensor Int(int32_t v) { return Tensor::Scalar<int32_t>(v); }
const PartialTensorShape kUnknown = PartialTensorShape::Unknown();

TEST(ArrayOpsShapeTest, Reshape) {
  Tensor shape = Vec({3, -1});
  EXPECT_EQ(InferOne("Reshape", {PartialTensorShape({2, 6}), {2}}, {nullptr, &shape}),
            PartialTensorShape({3, 4}));
  EXPECT_EQ(InferOne("Reshape", {PartialTensorShape({-1, 6}), {2}}, {nullptr, &shape}),
            PartialTensorShape({3, -1}));
  EXPECT_EQ(InferOne("Reshape", {PartialTensorShape({2, 6}), {2}}), PartialTensorShape({-1, -1}));
  EXPECT_EQ(InferOne("Reshape", {PartialTensorShape({2, 6}), kUnknown}), kUnknown);
  Tensor bad = Vec({5});
  EXPECT_FALSE(Infer("Reshape", {PartialTensorShape({2, 6}), {1}}, {nullptr, &bad}).ok());
}

TEST(ArrayOpsShapeTest, ExpandDimsSqueezeTranspose) {
  Tensor dim = Int(-1);
  EXPECT_EQ(InferOne("ExpandDims", {PartialTensorShape({2, -1}), {}}, {nullptr, &dim}),
            PartialTensorShape({2, -1, 1}));
  EXPECT_EQ(InferOne("ExpandDims", {PartialTensorShape({}), {}}, {nullptr, &dim}),
            PartialTensorShape({1}));
  EXPECT_EQ(InferOne("ExpandDims", {PartialTensorShape({2}), {}}), PartialTensorShape({-1, -1}));
  EXPECT_EQ(InferOne("Squeeze", {PartialTensorShape({1, 3, 1})}), PartialTensorShape({3}));
  EXPECT_EQ(InferOne("Squeeze", {PartialTensorShape({1, -1, 1})}, {},
                     {{"squeeze_dims", AttrValue::IntList({-1})}}),
            PartialTensorShape({1, -1}));
  EXPECT_EQ(InferOne("Squeeze", {PartialTensorShape({1, -1})}), kUnknown);
  EXPECT_FALSE(Infer("Squeeze", {PartialTensorShape({1, 3})}, {},
                     {{"squeeze_dims", AttrValue::IntList({1})}}).ok());
  Tensor perm = Vec({2, 0, 1});
  EXPECT_EQ(InferOne("Transpose", {PartialTensorShape({2, -1, 4}), {3}}, {nullptr, &perm}),
            PartialTensorShape({4, 2, -1}));
  EXPECT_EQ(InferOne("Transpose", {PartialTensorShape({2, 3, 4}), {3}}),
            PartialTensorShape({-1, -1, -1}));
  EXPECT_EQ(InferOne("Transpose", {kUnknown, {3}}), PartialTensorShape({-1, -1, -1}));
  Tensor dup = Vec({0, 0, 1});
  EXPECT_FALSE(Infer("Transpose", {PartialTensorShape({2, 3, 4}), {3}}, {nullptr, &dup}).ok());
}

// StridedSlice's shape from a constant spec, the masks included.
TEST(ArrayOpsShapeTest, StridedSlice) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s, DT_FLOAT, PartialTensorShape({4, 5, 6}));
  auto v = [](std::vector<int32_t> a) { return Tensor::FromVector<int32_t>(a); };
  // x[1:3, ::2, 2]
  auto a = StridedSlice(s, x, v({1, 0, 2}), v({3, 0, 3}), v({1, 2, 1}), 0, 2, 0, 0, 4);
  EXPECT_EQ(a.node->output_shape(0), PartialTensorShape({2, 3}));
  // x[..., None], x[::-1]
  auto b = StridedSlice(s, x, v({0, 0}), v({0, 0}), v({1, 1}), 0, 0, 1, 2, 0);
  EXPECT_EQ(b.node->output_shape(0), PartialTensorShape({4, 5, 6, 1}));
  auto c = StridedSlice(s, x, v({0}), v({0}), v({-1}), 1, 1, 0, 0, 0);
  EXPECT_EQ(c.node->output_shape(0), PartialTensorShape({4, 5, 6}));
  // An unknown dimension stays unknown unless it is shrunk away.
  auto y = Placeholder(s, DT_FLOAT, PartialTensorShape({-1, 5}));
  auto d = StridedSlice(s, y, v({1, 1}), v({3, 4}), v({1, 1}), 0, 0, 0, 0, 0);
  EXPECT_EQ(d.node->output_shape(0), PartialTensorShape({-1, 3}));
  auto e = StridedSlice(s, y, v({1, 0}), v({2, 0}), v({1, 1}), 0, 2, 0, 0, 1);
  EXPECT_EQ(e.node->output_shape(0), PartialTensorShape({5}));
  // A spec fed at run time: unknown.
  auto f = StridedSlice(s, x, Placeholder(s, DT_INT32), v({1}), v({1}));
  EXPECT_TRUE(f.node->output_shape(0).unknown_rank());
  // An index out of a known dimension is an error when the graph is built.
  StridedSlice(s.WithOpName("bad"), x, v({7}), v({8}), v({1}), 0, 0, 0, 0, 1);
  EXPECT_NE(s.status().message().find("out of bounds"), std::string::npos) << s.status().ToString();
}

TEST(ArrayOpsShapeTest, ConcatSplitPackUnpack) {
  Tensor axis = Int(1);
  EXPECT_EQ(InferOne("ConcatV2", {PartialTensorShape({2, 3}), PartialTensorShape({-1, 4}), {}},
                     {nullptr, nullptr, &axis}),
            PartialTensorShape({2, 7}));
  EXPECT_EQ(InferOne("ConcatV2", {PartialTensorShape({2, 3}), kUnknown, {}},
                     {nullptr, nullptr, &axis}),
            PartialTensorShape({2, -1}));
  EXPECT_EQ(InferOne("ConcatV2", {PartialTensorShape({2, 3}), PartialTensorShape({2, 4}), {}}),
            PartialTensorShape({-1, -1}));
  EXPECT_FALSE(Infer("ConcatV2", {PartialTensorShape({2, 3}), PartialTensorShape({3, 4}), {}},
                     {nullptr, nullptr, &axis}).ok());
  // The original Concat takes its axis (concat_dim) first.
  EXPECT_EQ(InferOne("Concat", {{}, PartialTensorShape({2, 3}), PartialTensorShape({-1, 4})},
                     {&axis, nullptr, nullptr}),
            PartialTensorShape({2, 7}));
  EXPECT_FALSE(Infer("Concat", {{}, PartialTensorShape({2, 3}), PartialTensorShape({3, 4})},
                     {&axis, nullptr, nullptr}).ok());
  auto split = Infer("Split", {{}, PartialTensorShape({4, 6})}, {&axis, nullptr},
                     {{"num_split", AttrValue::Int(3)}}, 3);
  ASSERT_TRUE(split.ok()) << split.status().ToString();
  EXPECT_EQ((*split)[2], PartialTensorShape({4, 2}));
  EXPECT_FALSE(Infer("Split", {{}, PartialTensorShape({4, 5})}, {&axis, nullptr},
                     {{"num_split", AttrValue::Int(3)}}, 3).ok());
  EXPECT_EQ(InferOne("Pack", {PartialTensorShape({2, -1}), PartialTensorShape({-1, 3})}, {},
                     {{"axis", AttrValue::Int(1)}}),
            PartialTensorShape({2, 2, 3}));
  EXPECT_EQ(InferOne("Pack", {PartialTensorShape({}), PartialTensorShape({})}),
            PartialTensorShape({2}));
  auto unpack = Infer("Unpack", {PartialTensorShape({2, 3})}, {}, {{"num", AttrValue::Int(3)},
                                                                    {"axis", AttrValue::Int(-1)}}, 3);
  ASSERT_TRUE(unpack.ok()) << unpack.status().ToString();
  EXPECT_EQ((*unpack)[0], PartialTensorShape({2}));
  EXPECT_FALSE(Infer("Unpack", {PartialTensorShape({2, 3})}, {}, {{"num", AttrValue::Int(3)}}, 3)
                   .ok());
}

TEST(ArrayOpsShapeTest, SlicePadTileGather) {
  Tensor begin = Vec({1, 0}), size = Vec({-1, 2});
  EXPECT_EQ(InferOne("Slice", {PartialTensorShape({4, 5}), {2}, {2}}, {nullptr, &begin, &size}),
            PartialTensorShape({3, 2}));
  EXPECT_EQ(InferOne("Slice", {PartialTensorShape({4, 5}), {2}, {2}}),
            PartialTensorShape({-1, -1}));
  Tensor pads = Tensor::FromVector<int32_t>({1, 2, 0, 3}, {2, 2});
  EXPECT_EQ(InferOne("Pad", {PartialTensorShape({4, -1}), {2, 2}}, {nullptr, &pads}),
            PartialTensorShape({7, -1}));
  EXPECT_FALSE(Infer("Pad", {PartialTensorShape({4, 5}), {3, 2}}).ok());
  Tensor m = Vec({2, 0});
  EXPECT_EQ(InferOne("Tile", {PartialTensorShape({3, -1}), {2}}, {nullptr, &m}),
            PartialTensorShape({6, 0}));
  EXPECT_EQ(InferOne("Gather", {PartialTensorShape({10, 3, 4}), PartialTensorShape({2, 5})}),
            PartialTensorShape({2, 5, 3, 4}));
  EXPECT_FALSE(Infer("Gather", {PartialTensorShape({}), PartialTensorShape({2})}).ok());
}

TEST(ArrayOpsShapeTest, IndexingByCoordinates) {
  // GatherNd: indices.shape[:-1] + params.shape[k:].
  EXPECT_EQ(InferOne("GatherNd", {PartialTensorShape({5, 4, 3}), PartialTensorShape({2, 7, 2})}),
            PartialTensorShape({2, 7, 3}));
  EXPECT_EQ(InferOne("GatherNd", {PartialTensorShape({5, 4}), PartialTensorShape({6, 0})}),
            PartialTensorShape({6, 5, 4}));
  EXPECT_EQ(InferOne("GatherNd", {PartialTensorShape({5, 4}), PartialTensorShape({6, -1})}),
            kUnknown);
  EXPECT_FALSE(Infer("GatherNd", {PartialTensorShape({5, 4}), PartialTensorShape({6, 3})}).ok());
  EXPECT_FALSE(Infer("GatherNd", {PartialTensorShape({5}), PartialTensorShape({})}).ok());
  // ScatterNd: `shape` where it is a constant; updates must fit it.
  Tensor shape = Vec({4, 3});
  EXPECT_EQ(InferOne("ScatterNd", {PartialTensorShape({5, 1}), PartialTensorShape({5, 3}), {2}},
                     {nullptr, nullptr, &shape}),
            PartialTensorShape({4, 3}));
  EXPECT_EQ(InferOne("ScatterNd", {PartialTensorShape({5, 1}), PartialTensorShape({5, 3}), {2}}),
            PartialTensorShape({-1, -1}));
  auto bad = Infer("ScatterNd", {PartialTensorShape({5, 1}), PartialTensorShape({5, 4}), {2}},
                   {nullptr, nullptr, &shape});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("pick slices of shape [5,3]"), std::string::npos)
      << bad.status().ToString();
  Tensor negative = Vec({4, -3});
  auto neg = Infer("ScatterNd", {PartialTensorShape({5, 1}), PartialTensorShape({5, 3}), {2}},
                   {nullptr, nullptr, &negative});
  ASSERT_FALSE(neg.ok());
  EXPECT_EQ(neg.status().message().rfind("shape: ", 0), 0u) << neg.status().ToString();
  // Where: one row of coordinates per nonzero element.
  EXPECT_EQ(InferOne("Where", {PartialTensorShape({2, -1, 3})}), PartialTensorShape({-1, 3}));
  EXPECT_EQ(InferOne("Where", {kUnknown}), PartialTensorShape({-1, -1}));
  // SelectV2: the three broadcast together.
  EXPECT_EQ(InferOne("SelectV2", {PartialTensorShape({2, 1}), PartialTensorShape({1, 3}),
                                  PartialTensorShape({})}),
            PartialTensorShape({2, 3}));
  EXPECT_FALSE(Infer("SelectV2", {PartialTensorShape({2}), PartialTensorShape({3}),
                                  PartialTensorShape({3})}).ok());
}

TEST(ArrayOpsShapeTest, ClipByValueAndMatrixBandPart) {
  EXPECT_EQ(InferOne("ClipByValue", {PartialTensorShape({2, -1}), {}, PartialTensorShape({2, 3})}),
            PartialTensorShape({2, -1}));
  EXPECT_FALSE(Infer("ClipByValue", {PartialTensorShape({2, 3}), {3}, {}}).ok());
  EXPECT_EQ(InferOne("MatrixBandPart", {PartialTensorShape({5, 3, 3}), {}, {}}),
            PartialTensorShape({5, 3, 3}));
  EXPECT_FALSE(Infer("MatrixBandPart", {PartialTensorShape({3}), {}, {}}).ok());
  EXPECT_FALSE(Infer("MatrixBandPart", {PartialTensorShape({3, 3}), {2}, {}}).ok());
}

// Einsum's output shape from partial operand shapes: a letter's size from
// whichever operand knows it, "..." broadcast, the implicit output.
TEST(ArrayOpsShapeTest, Einsum) {
  auto eq = [](const std::string& e) { return AttrMap{{"equation", AttrValue::String(e)}}; };
  EXPECT_EQ(InferOne("Einsum", {PartialTensorShape({-1, 4}), PartialTensorShape({4, 5})}, {},
                     eq("ij,jk->ik")),
            PartialTensorShape({-1, 5}));
  EXPECT_EQ(InferOne("Einsum", {kUnknown, PartialTensorShape({4, 5})}, {}, eq("ij,jk->ki")),
            PartialTensorShape({5, -1}));
  EXPECT_EQ(InferOne("Einsum", {PartialTensorShape({2, 1, 3, 4}), PartialTensorShape({-1, 4, 6})},
                     {}, eq("...ij,...jk->...ik")),
            PartialTensorShape({2, -1, 3, 6}));
  EXPECT_EQ(InferOne("Einsum", {kUnknown, PartialTensorShape({4, 6})}, {}, eq("...j,jk->...k")),
            kUnknown);
  EXPECT_EQ(InferOne("Einsum", {PartialTensorShape({3, 4})}, {}, eq("ji")),
            PartialTensorShape({4, 3}));
  EXPECT_EQ(InferOne("Einsum", {PartialTensorShape({3, 4}), PartialTensorShape({4, 3})}, {},
                     eq("ij,ji")),
            PartialTensorShape({}));
  EXPECT_FALSE(Infer("Einsum", {PartialTensorShape({3, 4}), PartialTensorShape({5, 6})}, {},
                     eq("ij,jk->ik")).ok());
  EXPECT_FALSE(Infer("Einsum", {PartialTensorShape({3})}, {}, eq("ij->i")).ok());
  EXPECT_FALSE(Infer("Einsum", {PartialTensorShape({3, 3})}, {}, eq("ii->i")).ok());
}

TEST(ArrayOpsShapeTest, DepthwiseConv2dNative) {
  const AttrMap a = {{"strides", AttrValue::IntList({1, 2, 2, 1})},
                     {"padding", AttrValue::String("SAME")}};
  EXPECT_EQ(InferOne("DepthwiseConv2dNative",
                     {PartialTensorShape({-1, 9, 8, 3}), PartialTensorShape({3, 3, 3, 4})}, {}, a),
            PartialTensorShape({-1, 5, 4, 12}));
  EXPECT_EQ(InferOne("DepthwiseConv2dNative",
                     {PartialTensorShape({2, 9, 8, -1}), PartialTensorShape({3, 3, 3, 4})}, {}, a),
            PartialTensorShape({2, 5, 4, 12}));
  EXPECT_EQ(InferOne("DepthwiseConv2dNative", {PartialTensorShape({2, 9, 8, 3}), kUnknown}, {}, a),
            PartialTensorShape({2, -1, -1, -1}));
  EXPECT_FALSE(Infer("DepthwiseConv2dNative",
                     {PartialTensorShape({2, 9, 8, 3}), PartialTensorShape({3, 3, 2, 4})}, {}, a)
                   .ok());
}

TEST(ArrayOpsShapeTest, ShapeSizeRank) {
  EXPECT_EQ(InferOne("Shape", {PartialTensorShape({2, -1, 3})}), PartialTensorShape({3}));
  EXPECT_EQ(InferOne("Shape", {PartialTensorShape({})}), PartialTensorShape({0}));
  EXPECT_EQ(InferOne("Shape", {kUnknown}), PartialTensorShape({-1}));
  EXPECT_EQ(InferOne("Size", {kUnknown}), PartialTensorShape({}));
  EXPECT_EQ(InferOne("Rank", {PartialTensorShape({2})}), PartialTensorShape({}));
}

}  // namespace
}  // namespace tact

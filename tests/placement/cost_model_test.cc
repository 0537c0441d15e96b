// The static and measured cost models: FLOPs and bytes from shapes, link
// costs by kind of link, measurements overriding estimates.
#include <gtest/gtest.h>

#include "graph/ops/all_ops.h"
#include "placement/cost_model.h"
#include "tests/placement/placement_test_util.h"

namespace tact {
namespace {

using placement_test::Dev;

TEST(StaticCostModel, MatMulIsTwoMNK) {
  Scope s = Scope::NewRootScope();
  auto a = Placeholder(s, DT_FLOAT, PartialTensorShape({8, 16}));
  auto b = Placeholder(s, DT_FLOAT, PartialTensorShape({16, 4}));
  auto c = MatMul(s, a, b);
  auto bt = Placeholder(s, DT_FLOAT, PartialTensorShape({4, 16}));
  auto at = Placeholder(s, DT_FLOAT, PartialTensorShape({16, 8}));
  auto ct = MatMul(s, at, bt, /*transpose_a=*/true, /*transpose_b=*/true);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  StaticCostOptions o;
  EXPECT_DOUBLE_EQ(EstimatedFlops(*c.node, o), 2.0 * 8 * 4 * 16);
  EXPECT_DOUBLE_EQ(EstimatedFlops(*ct.node, o), 2.0 * 8 * 4 * 16);
  auto cost = NewStaticCostModel(*s.graph(), o);
  EXPECT_EQ(cost->OutputBytes(*c.node, 0), 8 * 4 * 4);
  // overhead + flops / throughput, per device type.
  EXPECT_DOUBLE_EQ(cost->ExecutionSeconds(*c.node, "CPU"), 2e-6 + 1024.0 / 1e10);
  EXPECT_DOUBLE_EQ(cost->ExecutionSeconds(*c.node, "GPU"), 8e-6 + 1024.0 / 1e13);
  EXPECT_DOUBLE_EQ(cost->ExecutionSeconds(*c.node, "TPU"), 2e-6 + 1024.0 / 1e10);
}

// A node that launches no kernel costs the executor's dispatch on every
// device type: a GPU's launch overhead is not paid for a Reshape.
TEST(StaticCostModel, NodesWithoutAKernelLaunchCostTheSameEverywhere) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s, DT_FLOAT, PartialTensorShape({1024, 1024}));
  auto id = Identity(s, x);
  auto r = Reshape(s, x, Tensor::FromVector<int32_t>({-1}));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto cost = NewStaticCostModel(*s.graph());
  for (const Output& o : {id, r}) {
    EXPECT_DOUBLE_EQ(cost->ExecutionSeconds(*o.node, "CPU"), 2e-6) << o.node->op();
    EXPECT_DOUBLE_EQ(cost->ExecutionSeconds(*o.node, "GPU"), 2e-6) << o.node->op();
  }
}

// An Einsum counts one multiply-add per combination of its labels (as MatMul
// and BatchMatMul do), a single operand one addition per element read; a
// depthwise convolution one window of one channel per output element.
TEST(StaticCostModel, EinsumAndTheDepthwiseConvolution) {
  Scope s = Scope::NewRootScope();
  auto a = Placeholder(s, DT_FLOAT, PartialTensorShape({2, 3, 4}));
  auto b = Placeholder(s, DT_FLOAT, PartialTensorShape({2, 4, 5}));
  auto product = Einsum(s, "bij,bjk->bik", {a, b});
  auto dense = Einsum(s, "...j,jk->...k", {a, Placeholder(s, DT_FLOAT, PartialTensorShape({4, 6}))});
  auto sum = Einsum(s, "bij->j", {a});
  auto x = Placeholder(s, DT_FLOAT, PartialTensorShape({2, 10, 10, 3}));
  auto f = Placeholder(s, DT_FLOAT, PartialTensorShape({3, 3, 3, 2}));
  auto y = DepthwiseConv2dNative(s, x, f, {1, 1, 1, 1}, "SAME");  // [2, 10, 10, 6]
  auto dy = Placeholder(s, DT_FLOAT, PartialTensorShape({2, 10, 10, 6}));
  auto dx = DepthwiseConv2dNativeBackpropInput(s, Shape(s, x), f, dy, {1, 1, 1, 1}, "SAME");
  auto df = DepthwiseConv2dNativeBackpropFilter(s, x, Shape(s, f), dy, {1, 1, 1, 1}, "SAME");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  StaticCostOptions o;
  EXPECT_DOUBLE_EQ(EstimatedFlops(*product.node, o), 2.0 * 2 * 3 * 4 * 5);
  EXPECT_DOUBLE_EQ(EstimatedFlops(*dense.node, o), 2.0 * 2 * 3 * 4 * 6);
  EXPECT_DOUBLE_EQ(EstimatedFlops(*sum.node, o), 2.0 * 3 * 4);
  const double forward = 2.0 * (2 * 10 * 10 * 6) * (3 * 3);
  EXPECT_DOUBLE_EQ(EstimatedFlops(*y.node, o), forward);
  EXPECT_DOUBLE_EQ(EstimatedFlops(*dx.node, o), forward);
  EXPECT_DOUBLE_EQ(EstimatedFlops(*df.node, o), forward);
  auto cost = NewStaticCostModel(*s.graph(), o);
  EXPECT_EQ(cost->OutputBytes(*dx.node, 0), 2 * 10 * 10 * 3 * 4);
  EXPECT_EQ(cost->OutputBytes(*df.node, 0), 3 * 3 * 3 * 2 * 4);
}

TEST(StaticCostModel, Conv2DAndItsBackprops) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s, DT_FLOAT, PartialTensorShape({2, 10, 10, 3}));
  auto f = Placeholder(s, DT_FLOAT, PartialTensorShape({5, 5, 3, 8}));
  auto y = Conv2D(s, x, f, {1, 1, 1, 1}, "SAME");  // [2, 10, 10, 8]
  auto dy = Placeholder(s, DT_FLOAT, PartialTensorShape({2, 10, 10, 8}));
  auto dx = Conv2DBackpropInput(s, Tensor::FromVector<int32_t>({2, 10, 10, 3}), f, dy,
                                {1, 1, 1, 1}, "SAME");
  auto df = Conv2DBackpropFilter(s, x, Tensor::FromVector<int32_t>({5, 5, 3, 8}), dy,
                                 {1, 1, 1, 1}, "SAME");
  // As the gradient builder writes them: the sizes from Shape ops, which
  // leave the outputs' static shapes unknown.
  auto dx2 = Conv2DBackpropInput(s, Shape(s, x), f, dy, {1, 1, 1, 1}, "SAME");
  auto df2 = Conv2DBackpropFilter(s, x, Shape(s, f), dy, {1, 1, 1, 1}, "SAME");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  StaticCostOptions o;
  const double forward = 2.0 * (2 * 10 * 10 * 8) * (5 * 5 * 3);
  EXPECT_DOUBLE_EQ(EstimatedFlops(*y.node, o), forward);
  EXPECT_DOUBLE_EQ(EstimatedFlops(*dx.node, o), forward);
  EXPECT_DOUBLE_EQ(EstimatedFlops(*df.node, o), forward);
  EXPECT_DOUBLE_EQ(EstimatedFlops(*dx2.node, o), forward);
  EXPECT_DOUBLE_EQ(EstimatedFlops(*df2.node, o), forward);
  auto cost = NewStaticCostModel(*s.graph(), o);
  EXPECT_EQ(cost->OutputBytes(*dx.node, 0), 2 * 10 * 10 * 3 * 4);
  EXPECT_EQ(cost->OutputBytes(*df.node, 0), 5 * 5 * 3 * 8 * 4);
  EXPECT_EQ(cost->OutputBytes(*dx2.node, 0), 2 * 10 * 10 * 3 * 4);
  EXPECT_EQ(cost->OutputBytes(*df2.node, 0), 5 * 5 * 3 * 8 * 4);
}

TEST(StaticCostModel, ElementwiseCountsElementsAndMetadataIsFree) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s, DT_DOUBLE, PartialTensorShape({-1, 100}));
  auto r = Relu(s, x);
  auto sum = Sum(s, r, 1);
  auto shape = Shape(s, r);
  auto id = Identity(s, r);
  auto unknown = Placeholder(s, DT_FLOAT);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  StaticCostOptions o;
  o.unknown_dim = 7;
  o.unknown_rank_elements = 3;
  EXPECT_DOUBLE_EQ(EstimatedFlops(*r.node, o), 7 * 100);
  EXPECT_DOUBLE_EQ(EstimatedFlops(*sum.node, o), 7 * 100);  // reads every element
  EXPECT_DOUBLE_EQ(EstimatedFlops(*shape.node, o), 0);
  EXPECT_DOUBLE_EQ(EstimatedFlops(*id.node, o), 0);
  auto cost = NewStaticCostModel(*s.graph(), o);
  EXPECT_EQ(cost->OutputBytes(*r.node, 0), 7 * 100 * 8);
  EXPECT_EQ(cost->OutputBytes(*unknown.node, 0), 3 * 4);
  EXPECT_EQ(cost->OutputBytes(*r.node, 5), 0);  // no such port
  EXPECT_DOUBLE_EQ(cost->ExecutionSeconds(*shape.node, "CPU"), 2e-6);
}

TEST(StaticCostModel, TransferDependsOnTheLink) {
  Scope s = Scope::NewRootScope();
  StaticCostOptions o;
  o.same_task = {1e-6, 1e9};
  o.across_tasks = {1e-4, 1e8};
  auto cost = NewStaticCostModel(*s.graph(), o);
  const std::string a = Dev(0, "CPU", 0), b = Dev(0, "GPU", 0), c = Dev(1, "CPU", 0);
  EXPECT_DOUBLE_EQ(cost->TransferSeconds(1000000, a, a), 0);
  EXPECT_DOUBLE_EQ(cost->TransferSeconds(1000000, a, b), 1e-6 + 1e-3);
  EXPECT_DOUBLE_EQ(cost->TransferSeconds(1000000, a, c), 1e-4 + 1e-2);
  EXPECT_DOUBLE_EQ(cost->TransferSeconds(1000000, a, Dev(0, "CPU", 0, "ps")), 1e-4 + 1e-2);
}

TEST(MeasuredCostModel, RecordsOverrideTheEstimatePerNodeAndType) {
  Scope s = Scope::NewRootScope();
  auto a = Placeholder(s, DT_FLOAT, PartialTensorShape({8, 16}));
  auto b = Placeholder(s, DT_FLOAT, PartialTensorShape({16, 4}));
  auto c = MatMul(s.WithOpName("c"), a, b);
  auto d = Relu(s.WithOpName("d"), c);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  MeasuredCostModel m(*s.graph());
  auto base = NewStaticCostModel(*s.graph());
  EXPECT_DOUBLE_EQ(m.ExecutionSeconds(*c.node, "CPU"), base->ExecutionSeconds(*c.node, "CPU"));

  m.Record("c", "cpu", 0.5, {1000});
  m.Record("c", "CPU", 1.5);
  EXPECT_EQ(m.num_records(), 2);
  EXPECT_DOUBLE_EQ(m.ExecutionSeconds(*c.node, "CPU"), 1.0);  // the mean
  // Another type, another node: still the estimates.
  EXPECT_DOUBLE_EQ(m.ExecutionSeconds(*c.node, "GPU"), base->ExecutionSeconds(*c.node, "GPU"));
  EXPECT_DOUBLE_EQ(m.ExecutionSeconds(*d.node, "CPU"), base->ExecutionSeconds(*d.node, "CPU"));
  EXPECT_EQ(m.OutputBytes(*c.node, 0), 1000);
  EXPECT_EQ(m.OutputBytes(*d.node, 0), base->OutputBytes(*d.node, 0));
  EXPECT_DOUBLE_EQ(m.TransferSeconds(100, Dev(0, "CPU", 0), Dev(0, "CPU", 1)),
                   base->TransferSeconds(100, Dev(0, "CPU", 0), Dev(0, "CPU", 1)));
}

}  // namespace
}  // namespace tact

// The rules of AddSymbolicGradients (gradients.h): Figure 1 by hand, summing
// over several consumers, zeros for unused outputs, cut integer paths,
// StopGradient, and the error for an op without a gradient function.
#include "graph/gradients/gradients.h"

#include <gtest/gtest.h>

#include "graph/op_registry.h"
#include "graph/ops/all_ops.h"
#include "tests/gradients/gradient_checker.h"

namespace tact {
namespace {

std::vector<double> Values(const Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    v.push_back(t.dtype() == DT_FLOAT ? t.data<float>()[i] : t.data<double>()[i]);
  }
  return v;
}

// Paper Figure 1: relu(x W + b), loss = sum. With x = [1, 2],
// W = [[1, -1], [0.5, 2]], b = [0.5, -4]: h = [2.5, -1], relu = [2.5, 0], so
// dh = [1, 0] (relu passes only the positive unit), db = dh, dW = x^T dh =
// [[1, 0], [2, 0]], dx = dh W^T = [1, 0.5].
TEST(GradientsTest, Figure1ByHand) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  auto W = Placeholder(s.WithOpName("W"), DT_FLOAT);
  auto b = Placeholder(s.WithOpName("b"), DT_FLOAT);
  auto relu = Relu(s, Add(s, MatMul(s, x, W), b));
  auto loss = Sum(s, relu, {0, 1});
  std::vector<Output> g;
  ASSERT_TRUE(AddSymbolicGradients(s, {loss}, {x, W, b}, {}, &g).ok());
  auto out = RunGraph(s, {x, W, b},
                      {Tensor::FromVector<float>({1, 2}, {1, 2}),
                       Tensor::FromVector<float>({1, -1, 0.5, 2}, {2, 2}),
                       Tensor::FromVector<float>({0.5, -4})},
                      {loss, g[0], g[1], g[2]});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values((*out)[0]), std::vector<double>({2.5}));
  EXPECT_EQ(Values((*out)[1]), std::vector<double>({1, 0.5}));
  EXPECT_EQ(Values((*out)[2]), std::vector<double>({1, 0, 2, 0}));
  EXPECT_EQ(Values((*out)[3]), std::vector<double>({1, 0}));
  EXPECT_EQ((*out)[2].shape(), TensorShape({2, 2}));
}

// y = x * x + 3 x uses x three times: dy/dx = 2x + 3, summed with AddN.
TEST(GradientsTest, TensorUsedTwiceSumsItsGradients) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_DOUBLE);
  auto y = Add(s, Mul(s, x, x), Mul(s, x, 3.0));
  std::vector<Output> g;
  ASSERT_TRUE(AddSymbolicGradients(s, {y}, {x}, {}, &g).ok());
  auto out = RunGraph(s, {x}, {Tensor::FromVector<double>({1, -2})}, {g[0]});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values((*out)[0]), std::vector<double>({5, -1}));
}

// Only the second piece of the Split reaches y: the first gets zeros.
TEST(GradientsTest, UnusedOutputsOfMultiOutputOpsGetZeros) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_DOUBLE);
  auto y = Mul(s, Split(s, 0, x, 2)[1], 2.0);
  auto z = Unpack(s, x, 4)[2];
  std::vector<Output> g, gz;
  ASSERT_TRUE(AddSymbolicGradients(s, {y}, {x}, {}, &g).ok());
  ASSERT_TRUE(AddSymbolicGradients(s, {z}, {x}, {}, &gz).ok());
  auto out = RunGraph(s, {x}, {Tensor::FromVector<double>({1, 2, 3, 4})}, {g[0], gz[0]});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values((*out)[0]), std::vector<double>({0, 0, 2, 2}));
  EXPECT_EQ(Values((*out)[1]), std::vector<double>({0, 0, 1, 0}));
}

// StopGradient and integer edges pass nothing: x gets ZerosLike(x) where no
// other path exists, and the other path's gradient where one does.
TEST(GradientsTest, StopGradientAndIntegerPathsCut) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_DOUBLE);
  auto stopped = Mul(s, StopGradient(s, x), x);  // d/dx = stop(x) = x
  auto through_int = Cast(s, Cast(s, Mul(s, x, 10.0), DT_INT32), DT_DOUBLE);
  auto only_int = Mul(s, through_int, 2.0);
  std::vector<Output> g1, g2, g3;
  ASSERT_TRUE(AddSymbolicGradients(s, {stopped}, {x}, {}, &g1).ok());
  ASSERT_TRUE(AddSymbolicGradients(s, {only_int}, {x}, {}, &g2).ok());
  ASSERT_TRUE(AddSymbolicGradients(s, {Add(s, only_int, x)}, {x}, {}, &g3).ok());
  auto out = RunGraph(s, {x}, {Tensor::FromVector<double>({1.5, -3})}, {g1[0], g2[0], g3[0]});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values((*out)[0]), std::vector<double>({1.5, -3}));
  EXPECT_EQ(Values((*out)[1]), std::vector<double>({0, 0}));
  EXPECT_EQ(Values((*out)[2]), std::vector<double>({1, 1}));
  // An integer x gets no gradient at all.
  auto n = Placeholder(s.WithOpName("n"), DT_INT32);
  std::vector<Output> gn;
  ASSERT_TRUE(AddSymbolicGradients(s, {Mul(s, x, Cast(s, n, DT_DOUBLE))}, {n}, {}, &gn).ok());
  EXPECT_FALSE(gn[0].ok());
}

TEST(GradientsTest, UnreachableXGetsZeros) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_DOUBLE);
  auto w = Placeholder(s.WithOpName("w"), DT_DOUBLE);
  std::vector<Output> g;
  ASSERT_TRUE(AddSymbolicGradients(s, {Square(s, x)}, {w}, {}, &g).ok());
  auto out = RunGraph(s, {x, w},
                      {Tensor::FromVector<double>({1}), Tensor::FromVector<double>({4, 5})},
                      {g[0]});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values((*out)[0]), std::vector<double>({0, 0}));
}

// An op that declares no gradient at all (every op of the library has one,
// or says it has none: grad_registry_walk_test.cc).
REGISTER_OP("TestNoGradient").Input("x: double").Output("y: double")
    .SetShapeFn(shape_fn::UnchangedShape);

TEST(GradientsTest, OpWithoutGradientIsAnErrorNamingNodeAndOp) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_DOUBLE);
  auto cut = OpBuilder(s.WithOpName("cut"), "TestNoGradient").Input(x).FinalizeOutput();
  std::vector<Output> g;
  Status st = AddSymbolicGradients(s, {Square(s, cut)}, {x}, {}, &g);
  EXPECT_EQ(st.code(), Code::kNotFound);
  EXPECT_NE(st.message().find("'cut'"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("'TestNoGradient'"), std::string::npos) << st.message();
  EXPECT_TRUE(g.empty());
}

// Second derivatives through a gradient op: d2/dx2 sqrt(x) = -x^(-3/2) / 4
// through SqrtGrad's own gradient.
TEST(GradientsTest, SecondDerivativeThroughAGradOp) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_DOUBLE);
  std::vector<Output> g, gg;
  ASSERT_TRUE(AddSymbolicGradients(s, {Sqrt(s, x)}, {x}, {}, &g).ok());
  ASSERT_TRUE(AddSymbolicGradients(s, {g[0]}, {x}, {}, &gg).ok());
  auto out = RunGraph(s, {x}, {Tensor::FromVector<double>({4, 0.25})}, {gg[0]});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const std::vector<double> v = Values((*out)[0]);
  EXPECT_NEAR(v[0], -1.0 / 32, 1e-12);
  EXPECT_NEAR(v[1], -2.0, 1e-12);
}

// A gradient through float32 and back: Cast passes the gradient unchanged.
TEST(GradientsTest, CastBetweenFloatTypesPassesTheGradient) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_DOUBLE);
  auto y = Cast(s, Mul(s, Cast(s, x, DT_FLOAT), 3.0f), DT_DOUBLE);
  std::vector<Output> g;
  ASSERT_TRUE(AddSymbolicGradients(s, {y}, {x}, {}, &g).ok());
  EXPECT_EQ(g[0].type(), DT_DOUBLE);
  auto out = RunGraph(s, {x}, {Tensor::FromVector<double>({1, 2})}, {g[0]});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values((*out)[0]), std::vector<double>({3, 3}));
}

}  // namespace
}  // namespace tact

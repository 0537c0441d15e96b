// Gradients through Cond (graph/gradients/control_flow_grad.cc) against
// central differences (float64), on each branch, and second derivatives.
#include <gtest/gtest.h>

#include "actors/session.h"
#include "graph/gradients/gradients.h"
#include "graph/ops/all_ops.h"
#include "tests/gradients/gradient_checker.h"

namespace tact {
namespace {

constexpr double kTol = 1e-6;

std::vector<Output> One(Output o) { return {o}; }

// y = Cond(sum(x) > 0, tanh(x) * w, x * x * w) + x, with x on either side
// of the predicate: x reaches y through both branches and around them.
TEST(ControlFlowGradTest, CondMatchesCentralDifferencesOnBothBranches) {
  for (double lo : {0.2, -1.0}) {
    Scope s = Scope::NewRootScope();
    auto x = Placeholder(s.WithOpName("x"), DT_DOUBLE);
    auto w = Placeholder(s.WithOpName("w"), DT_DOUBLE);
    auto r = Cond(
        s, Greater(s, Sum(s, x, {0}), 0.0),
        [&](const Scope& t) { return One(Mul(t, Tanh(t, x), w)); },
        [&](const Scope& f) { return One(Mul(f, Mul(f, x, x), w)); });
    ASSERT_EQ(r.size(), 1u) << s.status().ToString();
    auto y = Add(s, r[0], x);
    auto err = ComputeGradientError(s, {x, w},
                                    {RandomDoubles({4}, 3, lo, lo + 0.8),
                                     RandomDoubles({4}, 4, -1, 1)},
                                    y);
    ASSERT_TRUE(err.ok()) << err.status().ToString();
    EXPECT_LT(*err, kTol) << "x in [" << lo << ", " << lo + 0.8 << ")";
  }
}

TEST(ControlFlowGradTest, NestedCondMatchesCentralDifferences) {
  for (double lo : {1.5, 0.2, -1.0}) {
    Scope s = Scope::NewRootScope();
    auto x = Placeholder(s.WithOpName("x"), DT_DOUBLE);
    auto m = Sum(s, x, {0});
    auto r = Cond(
        s, Greater(s, m, 0.0),
        [&](const Scope& t) {
          auto inner = Cond(
              t, Greater(t, m, 3.0), [&](const Scope& a) { return One(Exp(a, x)); },
              [&](const Scope& b) { return One(Square(b, x)); });
          return One(inner.empty() ? Output() : inner[0]);
        },
        [&](const Scope& f) { return One(Neg(f, x)); });
    ASSERT_EQ(r.size(), 1u) << s.status().ToString();
    auto err = ComputeGradientError(s, {x}, {RandomDoubles({3}, 9, lo, lo + 0.5)}, r[0]);
    ASSERT_TRUE(err.ok()) << err.status().ToString();
    EXPECT_LT(*err, kTol) << lo;
  }
}

// d2/dx2 of Cond(x > 0, x^3, x^2): 6x on the true side, 2 on the other.
TEST(ControlFlowGradTest, SecondDerivativeThroughCond) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_DOUBLE);
  auto r = Cond(
      s, Greater(s, x, 0.0), [&](const Scope& t) { return One(Mul(t, Square(t, x), x)); },
      [&](const Scope& f) { return One(Square(f, x)); });
  ASSERT_EQ(r.size(), 1u) << s.status().ToString();
  std::vector<Output> g1, g2;
  ASSERT_TRUE(AddSymbolicGradients(s, {r[0]}, {x}, {}, &g1).ok());
  ASSERT_TRUE(AddSymbolicGradients(s, {g1[0]}, {x}, {}, &g2).ok()) << s.status().ToString();
  auto session = Session::Create();
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Extend(*s.ToGraphDef()).ok());
  for (double v : {2.0, -3.0}) {
    auto out = (*session)->Run({{"x", Tensor::Scalar<double>(v)}}, {g1[0].name(), g2[0].name()}, {});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_DOUBLE_EQ((*out)[0].scalar<double>(), v > 0 ? 3 * v * v : 2 * v);
    EXPECT_DOUBLE_EQ((*out)[1].scalar<double>(), v > 0 ? 6 * v : 2.0);
  }
}

}  // namespace
}  // namespace tact

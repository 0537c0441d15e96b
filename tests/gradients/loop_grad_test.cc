// Gradients through WhileLoop (graph/gradients/loop_grad.h): against the
// gradients of the same computation unrolled, against central differences,
// and against closed forms.
#include <gtest/gtest.h>

#include <cmath>

#include "actors/session.h"
#include "graph/gradients/gradients.h"
#include "graph/ops/all_ops.h"
#include "tests/gradients/gradient_checker.h"

namespace tact {
namespace {

std::vector<Tensor> Fetch(const Scope& s, const std::vector<std::pair<std::string, Tensor>>& feeds,
                          const std::vector<Output>& fetches, const std::vector<std::string>& targets = {}) {
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  auto session = Session::Create();
  EXPECT_TRUE(session.ok());
  auto def = s.ToGraphDef();
  EXPECT_TRUE(def.ok()) << def.status().ToString();
  EXPECT_TRUE((*session)->Extend(*def).ok());
  if (!targets.empty()) {
    EXPECT_TRUE((*session)->Run({}, {}, targets).ok());
  }
  std::vector<std::string> names;
  for (const Output& f : fetches) names.push_back(f.name());
  auto out = (*session)->Run(feeds, names, {});
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? *out : std::vector<Tensor>();
}

// x = tanh(W x), `steps` times, as a loop or unrolled; y = sum(x).
Output TanhChain(const Scope& s, Output W, Output x0, int steps, bool unrolled, int parallel = 10) {
  if (unrolled) {
    Output x = x0;
    for (int i = 0; i < steps; ++i) x = Tanh(s, MatMul(s, W, x));
    return Sum(s, x, {0, 1});
  }
  auto r = WhileLoop(
      s, {Const(s, Tensor::Scalar<int32_t>(0)), x0},
      [&](const Scope& c, const std::vector<Output>& v) { return Less(c, v[0], steps); },
      [&](const Scope& b, const std::vector<Output>& v) {
        return std::vector<Output>{Add(b, v[0], 1), Tanh(b, MatMul(b, W, v[1]))};
      },
      WhileOptions{"chain", parallel});
  return r.empty() ? Output() : Sum(s, r[1], {0, 1});
}

// The check: 50 iterations of x = tanh(W x) give the unrolled
// graph's gradients, for W (an invariant) and x0 (a loop variable).
TEST(LoopGradTest, FiftyIterationsMatchTheUnrolledGradients) {
  constexpr int kDim = 6;
  const Tensor w = RandomDoubles({kDim, kDim}, 5, -0.6, 0.6);
  const Tensor x0 = RandomDoubles({kDim, 1}, 6, -1, 1);
  std::vector<std::vector<Tensor>> results;
  for (bool unrolled : {false, true}) {
    Scope s = Scope::NewRootScope();
    auto W = Placeholder(s.WithOpName("W"), DT_DOUBLE);
    auto x = Placeholder(s.WithOpName("x0"), DT_DOUBLE);
    Output y = TanhChain(s, W, x, 50, unrolled);
    std::vector<Output> grads;
    ASSERT_TRUE(AddSymbolicGradients(s, {y}, {W, x}, {}, &grads).ok()) << s.status().ToString();
    results.push_back(Fetch(s, {{"W", w}, {"x0", x0}}, {y, grads[0], grads[1]}));
    ASSERT_EQ(results.back().size(), 3u);
  }
  EXPECT_NEAR(results[0][0].scalar<double>(), results[1][0].scalar<double>(), 1e-12);
  for (int g = 1; g <= 2; ++g) {
    const Tensor& loop = results[0][g];
    const Tensor& unrolled = results[1][g];
    ASSERT_EQ(loop.shape(), unrolled.shape());
    for (int64_t i = 0; i < loop.NumElements(); ++i) {
      const double want = unrolled.data<double>()[i];
      EXPECT_NEAR(loop.data<double>()[i], want, 1e-5 * std::max(1.0, std::abs(want)))
          << "gradient " << g << " entry " << i;
    }
  }
}

TEST(LoopGradTest, MatchesCentralDifferences) {
  Scope s = Scope::NewRootScope();
  auto W = Placeholder(s.WithOpName("W"), DT_DOUBLE);
  auto x = Placeholder(s.WithOpName("x0"), DT_DOUBLE);
  Output y = TanhChain(s, W, x, 7, false);
  auto err = ComputeGradientError(s, {W, x},
                                  {RandomDoubles({3, 3}, 1, -1, 1), RandomDoubles({3, 1}, 2, -1, 1)}, y);
  ASSERT_TRUE(err.ok()) << err.status().ToString();
  EXPECT_LT(*err, 1e-6);
}

// y = x0 * a^n by a loop of n multiplications: dy/dx0 = a^n and
// dy/da = n x0 a^(n-1), the loop that runs no iteration included; the
// result does not depend on parallel_iterations.
TEST(LoopGradTest, PowerByRepeatedMultiplication) {
  for (int parallel : {1, 10}) {
    Scope s = Scope::NewRootScope();
    auto a = Placeholder(s.WithOpName("a"), DT_DOUBLE);
    auto x0 = Placeholder(s.WithOpName("x0"), DT_DOUBLE);
    auto n = Placeholder(s.WithOpName("n"), DT_INT32);
    auto r = WhileLoop(
        s, {Const(s, Tensor::Scalar<int32_t>(0)), x0},
        [&](const Scope& c, const std::vector<Output>& v) { return Less(c, v[0], n); },
        [&](const Scope& b, const std::vector<Output>& v) {
          return std::vector<Output>{Add(b, v[0], 1), Mul(b, v[1], a)};
        },
        WhileOptions{"power", parallel});
    ASSERT_EQ(r.size(), 2u) << s.status().ToString();
    std::vector<Output> grads;
    ASSERT_TRUE(AddSymbolicGradients(s, {r[1]}, {x0, a}, {}, &grads).ok()) << s.status().ToString();
    for (int count : {0, 1, 5, 30}) {
      const double av = 1.1, xv = 0.7;
      auto out = Fetch(s, {{"a", Tensor::Scalar<double>(av)}, {"x0", Tensor::Scalar<double>(xv)},
                           {"n", Tensor::Scalar<int32_t>(count)}},
                       {r[1], grads[0], grads[1]});
      ASSERT_EQ(out.size(), 3u);
      EXPECT_NEAR(out[0].scalar<double>(), xv * std::pow(av, count), 1e-12);
      EXPECT_NEAR(out[1].scalar<double>(), std::pow(av, count), 1e-12) << count;
      EXPECT_NEAR(out[2].scalar<double>(), count == 0 ? 0.0 : count * xv * std::pow(av, count - 1),
                  1e-9)
          << count << " iterations, parallel_iterations " << parallel;
    }
  }
}

// A Cond in the body: x = x > 0 ? x * w : x + w, 6 times.
TEST(LoopGradTest, CondInTheBodyMatchesCentralDifferences) {
  for (double lo : {-2.0, 0.3}) {
    Scope s = Scope::NewRootScope();
    auto w = Placeholder(s.WithOpName("w"), DT_DOUBLE);
    auto x = Placeholder(s.WithOpName("x0"), DT_DOUBLE);
    auto r = WhileLoop(
        s, {Const(s, Tensor::Scalar<int32_t>(0)), x},
        [&](const Scope& c, const std::vector<Output>& v) { return Less(c, v[0], 6); },
        [&](const Scope& b, const std::vector<Output>& v) {
          auto next = Cond(
              b, Greater(b, Sum(b, v[1], {0}), 0.0),
              [&](const Scope& t) { return std::vector<Output>{Mul(t, v[1], w)}; },
              [&](const Scope& f) { return std::vector<Output>{Add(f, v[1], w)}; });
          return std::vector<Output>{Add(b, v[0], 1), next.empty() ? Output() : next[0]};
        });
    ASSERT_EQ(r.size(), 2u) << s.status().ToString();
    auto err = ComputeGradientError(
        s, {w, x}, {RandomDoubles({2}, 3, 0.5, 0.9), RandomDoubles({2}, 4, lo, lo + 0.5)},
        Sum(s, r[1], {0}));
    ASSERT_TRUE(err.ok()) << err.status().ToString();
    EXPECT_LT(*err, 1e-6) << lo;
  }
}

// W a Variable read in the body (through RefEnter): its gradient is the
// unrolled one, and a training step with it changes W as the unrolled
// graph's would.
TEST(LoopGradTest, VariableInTheBody) {
  std::vector<Tensor> got[2];
  for (bool unrolled : {false, true}) {
    Scope s = Scope::NewRootScope();
    auto W = Variable(s.WithOpName("W"), {3, 3}, DT_DOUBLE);
    Assign(s.WithOpName("init"), W, RandomDoubles({3, 3}, 8, -0.5, 0.5));
    auto x = Const(s, RandomDoubles({3, 1}, 9, -1, 1));
    Output y = TanhChain(s, W, x, 12, unrolled);
    std::vector<Output> grads;
    ASSERT_TRUE(AddSymbolicGradients(s, {y}, {W}, {}, &grads).ok()) << s.status().ToString();
    got[unrolled] = Fetch(s, {}, {y, grads[0]}, {"init"});
    ASSERT_EQ(got[unrolled].size(), 2u);
  }
  for (int64_t i = 0; i < 9; ++i) {
    EXPECT_NEAR(got[0][1].data<double>()[i], got[1][1].data<double>()[i], 1e-10) << i;
  }
}

TEST(LoopGradTest, ALoopInALoopIsAClearError) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_DOUBLE);
  auto r = WhileLoop(
      s, {Const(s, Tensor::Scalar<int32_t>(0)), x},
      [&](const Scope& c, const std::vector<Output>& v) { return Less(c, v[0], 3); },
      [&](const Scope& b, const std::vector<Output>& v) {
        auto inner = WhileLoop(
            b, {Const(b, Tensor::Scalar<int32_t>(0)), v[1]},
            [&](const Scope& c2, const std::vector<Output>& u) { return Less(c2, u[0], 2); },
            [&](const Scope& b2, const std::vector<Output>& u) {
              return std::vector<Output>{Add(b2, u[0], 1), Mul(b2, u[1], u[1])};
            });
        return std::vector<Output>{Add(b, v[0], 1), inner.empty() ? Output() : inner[1]};
      });
  ASSERT_EQ(r.size(), 2u) << s.status().ToString();
  std::vector<Output> grads;
  Status st = AddSymbolicGradients(s, {r[1]}, {x}, {}, &grads);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("WhileLoop 'while'"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("loop in a loop"), std::string::npos) << st.ToString();
}

TEST(LoopGradTest, ASecondDerivativeIsAClearError) {
  Scope s = Scope::NewRootScope();
  auto W = Placeholder(s.WithOpName("W"), DT_DOUBLE);
  auto x = Placeholder(s.WithOpName("x0"), DT_DOUBLE);
  Output y = TanhChain(s, W, x, 4, false);
  std::vector<Output> g1, g2;
  ASSERT_TRUE(AddSymbolicGradients(s, {y}, {W}, {}, &g1).ok()) << s.status().ToString();
  Status st = AddSymbolicGradients(s, {Sum(s, g1[0], {0, 1})}, {W}, {}, &g2);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("second derivatives through a WhileLoop"), std::string::npos)
      << st.ToString();
}

}  // namespace
}  // namespace tact

// The newer math, activation and loss ops against PyTorch (Debian's
// python3-torch) in float64: each op's values, and the gradient of their
// sum with respect to each input, from tact's graph on one side and
// torch.autograd on the other, on the same inputs. A second reference
// beside the C library (cwise_math_ops_test.cc) and central differences
// (op_gradients_test.cc): it catches a definition that differs from what
// users of the other frameworks expect (halves in Round, SELU's constants,
// the cross-entropy's sign), which a test written from the same reading
// would not. Skipped, saying so, where PyTorch is not installed
// (scripts/setup_peers.sh installs it).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <sstream>

#include "graph/gradients/gradients.h"
#include "graph/ops/all_ops.h"
#include "tests/gradients/gradient_checker.h"
#include "tests/gradients/torch_reference.h"

namespace tact {
namespace {

using Build = std::function<Output(const Scope&, Output a, Output b)>;

struct Case {
  std::string torch;  // a Python expression of the float64 tensors a and b
  Build build;        // the same in tact
  double lo = -2, hi = 2;
  bool gradient = true;     // compare d sum(y) / da and / db too
  std::vector<double> a{};  // the values of a, if not drawn in [lo, hi)
};

const TensorShape kShape({3, 4});

std::vector<Case> Cases() {
  const double nan = std::nan(""), inf = INFINITY;
  auto unary = [](Output (*op)(const Scope&, Input)) {
    return [op](const Scope& s, Output a, Output) { return op(s, a); };
  };
  auto as_double = [](Output (*op)(const Scope&, Input)) {
    return [op](const Scope& s, Output a, Output) { return Cast(s, op(s, a), DT_DOUBLE); };
  };
  // Complex: z = a + ib, and y's real part plus twice its imaginary part,
  // so that the real inputs a and b get the gradients (no convention for a
  // complex gradient's conjugation can hide behind real inputs).
  auto complex_case = [](Output (*op)(const Scope&, Input)) {
    return [op](const Scope& s, Output a, Output b) {
      Output y = op(s, Complex(s, a, b));
      return Add(s, Real(s, y), Mul(s, Imag(s, y), 2.0));
    };
  };
  auto complex_pair = [](Output (*op)(const Scope&, Input, Input)) {
    return [op](const Scope& s, Output a, Output b) {
      Output y = op(s, Complex(s, a, b), Complex(s, Mul(s, b, 0.5), Sub(s, a, 1.0)));
      return Add(s, Real(s, y), Mul(s, Imag(s, y), 2.0));
    };
  };
  const std::vector<double> halves = {-3, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 0.49, -0.51, 7, 1e-9};
  const std::vector<double> special = {1, nan, inf, -inf, 0, -0.0, nan, 2, -inf, 1e308, -1e-308, 3};
  return {
      {"torch.reciprocal(a)", unary(Reciprocal), 0.5, 2},
      {"torch.sin(a)", unary(Sin)},
      {"torch.cos(a)", unary(Cos)},
      {"torch.tan(a)", unary(Tan), -1.2, 1.2},
      {"torch.asin(a)", unary(Asin), -0.9, 0.9},
      {"torch.acos(a)", unary(Acos), -0.9, 0.9},
      {"torch.atan(a)", unary(Atan), -5, 5},
      {"torch.sinh(a)", unary(Sinh)},
      {"torch.cosh(a)", unary(Cosh)},
      {"torch.log1p(a)", unary(Log1p), -0.9, 3},
      {"torch.expm1(a)", unary(Expm1)},
      {"torch.erf(a)", unary(Erf)},
      {"torch.erfc(a)", unary(Erfc), -2, 4},
      {"F.softsign(a)", unary(Softsign), -4, 4},
      {"F.selu(a)", unary(Selu)},
      {"F.leaky_relu(a, 0.25)",
       [](const Scope& s, Output a, Output) { return LeakyRelu(s, a, 0.25f); }},
      {"torch.floor(a)", unary(Floor), -3, 3, false, halves},
      {"torch.ceil(a)", unary(Ceil), -3, 3, false, halves},
      {"torch.round(a)", unary(Round), -3, 3, false, halves},
      {"torch.round(a)", unary(Rint), -3, 3, false, halves},
      {"torch.isnan(a).double()", as_double(IsNan), 0, 0, false, special},
      {"torch.isinf(a).double()", as_double(IsInf), 0, 0, false, special},
      {"torch.isfinite(a).double()", as_double(IsFinite), 0, 0, false, special},
      {"a / b", [](const Scope& s, Output a, Output b) { return RealDiv(s, a, b); }, 0.5, 2},
      {"torch.atan2(a, b)", [](const Scope& s, Output a, Output b) { return Atan2(s, a, b); }},
      {"(a * a).sum() / 2", [](const Scope& s, Output a, Output) { return L2Loss(s, a); }},
      // The dense cross-entropy with labels softmax(b): its labels' gradient flows back to b.
      {"-(torch.softmax(b, 1) * torch.log_softmax(a, 1)).sum(1)",
       [](const Scope& s, Output a, Output b) {
         return SoftmaxCrossEntropyWithLogits(s, a, Softmax(s, b))[0];
       }},
      // Gather's gradient (UnsortedSegmentSum) and UnsortedSegmentSum's (Gather).
      {"a[torch.tensor([2, 0, 2, 1])]",
       [](const Scope& s, Output a, Output) {
         return Gather(s, a, Const(s, Tensor::FromVector<int32_t>({2, 0, 2, 1})));
       }},
      {"torch.zeros(5, 4, dtype=torch.float64).index_add(0, torch.tensor([4, 0, 4]), a)",
       [](const Scope& s, Output a, Output) {
         return UnsortedSegmentSum(s, a, Const(s, Tensor::FromVector<int32_t>({4, 0, 4})), 5);
       }},
      // GatherNd and ScatterNd (each the other's gradient), picked twice.
      {"a[torch.tensor([2, 0, 2]), torch.tensor([1, 3, 1])]",
       [](const Scope& s, Output a, Output) {
         return GatherNd(s, a, Const(s, Tensor::FromVector<int64_t>({2, 1, 0, 3, 2, 1}, {3, 2})));
       }},
      {"a[torch.tensor([1, 1, 0])]",
       [](const Scope& s, Output a, Output) {
         return GatherNd(s, a, Const(s, Tensor::FromVector<int32_t>({1, 1, 0}, {3, 1})));
       }},
      {"torch.zeros(4, 3, dtype=torch.float64).index_put("
       "(torch.tensor([3, 0, 3, 1]), torch.tensor([2, 2, 2, 0])), a[0], accumulate=True)",
       [](const Scope& s, Output a, Output) {
         Output ids = Const(s, Tensor::FromVector<int32_t>({3, 2, 0, 2, 3, 2, 1, 0}, {4, 2}));
         return ScatterNd(s, ids, Gather(s, a, 0), {4, 3});
       }},
      // SelectV2 broadcasting a column condition, a row and a matrix.
      {"torch.where(a[:, :1] > 0, a[:1, :], b)",
       [](const Scope& s, Output a, Output b) {
         return SelectV2(s, Greater(s, Slice(s, a, {0, 0}, {3, 1}), 0.0), Slice(s, a, {0, 0}, {1, 4}),
                         b);
       }},
      {"torch.nonzero(a > 0.5).double()",
       [](const Scope& s, Output a, Output) { return Cast(s, Where(s, Greater(s, a, 0.5)), DT_DOUBLE); },
       -2, 2, false},
      // ClipByValue with scalar bounds and with bounds of a's shape.
      {"torch.clamp(a, -0.5, 0.7)",
       [](const Scope& s, Output a, Output) { return ClipByValue(s, a, -0.5, 0.7); }},
      {"torch.clamp(a, b - 0.5, b + 0.5)",
       [](const Scope& s, Output a, Output b) {
         return ClipByValue(s, a, Sub(s, b, 0.5), Add(s, b, 0.5));
       }},
      // MatrixBandPart: a lower triangle, and a band one below and two above.
      {"torch.tril(a)",
       [](const Scope& s, Output a, Output) {
         return MatrixBandPart(s, a, Tensor::Scalar<int64_t>(-1), Tensor::Scalar<int64_t>(0));
       }},
      {"torch.triu(torch.tril(a, 2), -1)",
       [](const Scope& s, Output a, Output) {
         return MatrixBandPart(s, a, Tensor::Scalar<int64_t>(1), Tensor::Scalar<int64_t>(2));
       }},
      {"ri(torch.exp(z))", complex_case(Exp)},
      {"ri(torch.log(z))", complex_case(Log)},
      {"ri(torch.sqrt(z))", complex_case(Sqrt)},
      {"ri(torch.rsqrt(z))", complex_case(Rsqrt)},
      {"ri(z * z)", complex_case(Square)},
      {"ri(torch.reciprocal(z))", complex_case(Reciprocal)},
      {"ri(torch.sin(z))", complex_case(Sin)},
      {"ri(torch.cos(z))", complex_case(Cos)},
      {"ri(torch.tan(z))", complex_case(Tan), -1, 1},
      {"ri(torch.sinh(z))", complex_case(Sinh)},
      {"ri(torch.cosh(z))", complex_case(Cosh)},
      {"ri(torch.tanh(z))", complex_case(Tanh), -1, 1},
      {"ri(torch.sigmoid(z))", complex_case(Sigmoid), -1, 1},
      {"ri(torch.conj(z))", complex_case(Conj)},
      {"ri(z * w)", complex_pair(Mul)},
      {"ri(z / w)", complex_pair(Div)},
      {"ri(z - w)", complex_pair(Sub)},
      {"ri((z * w).sum(1))",
       [](const Scope& s, Output a, Output b) {
         Output y = Sum(s, Mul(s, Complex(s, a, b), Complex(s, Mul(s, b, 0.5), Sub(s, a, 1.0))), 1);
         return Add(s, Real(s, y), Mul(s, Imag(s, y), 2.0));
       }},
      {"ri(torch.exp(z).mean(0))",
       [](const Scope& s, Output a, Output b) {
         Output y = Mean(s, Exp(s, Complex(s, a, b)), 0);
         return Add(s, Real(s, y), Mul(s, Imag(s, y), 2.0));
       }},
      {"ri(z @ w.T)",
       [](const Scope& s, Output a, Output b) {
         Output y = MatMul(s, Complex(s, a, b), Complex(s, Mul(s, b, 0.5), Sub(s, a, 1.0)), false, true);
         return Add(s, Real(s, y), Mul(s, Imag(s, y), 2.0));
       }},
      {"torch.cumsum(a, 1)", [](const Scope& s, Output a, Output) { return Cumsum(s, a, 1); }},
      {"torch.flip(torch.cumsum(torch.flip(a, [0]), 0), [0]) - a",
       [](const Scope& s, Output a, Output) { return Cumsum(s, a, 0, true, true); }},
      {"torch.flip(a, [1])", [](const Scope& s, Output a, Output) { return ReverseV2(s, a, {1}); }},
      {"a.expand(2, 3, 4) * b.expand(2, 3, 4)",
       [](const Scope& s, Output a, Output b) {
         return Mul(s, BroadcastTo(s, a, {2, 3, 4}), BroadcastTo(s, b, {2, 3, 4}));
       }},
      {"torch.topk(a, 2).values", [](const Scope& s, Output a, Output) { return TopK(s, a, 2)[0]; }},
      {"torch.topk(a, 3).indices.double()",
       [](const Scope& s, Output a, Output) { return Cast(s, TopK(s, a, 3)[1], DT_DOUBLE); },
       -2, 2, false},
      {"torch.all(a > -1, 1).double()",
       [](const Scope& s, Output a, Output) {
         return Cast(s, All(s, Greater(s, a, -1.0), 1), DT_DOUBLE);
       }, -2, 2, false},
      {"torch.any(a > 1.5, 0).double()",
       [](const Scope& s, Output a, Output) {
         return Cast(s, Any(s, Greater(s, a, 1.5), 0), DT_DOUBLE);
       }, -2, 2, false},
  };
}

class MathOpsTorchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!test::TorchAvailable()) {
      GTEST_SKIP() << "PyTorch is not installed (scripts/setup_peers.sh installs it)";
    }
  }
};

TEST_F(MathOpsTorchTest, ValuesAndGradientsMatchPyTorch) {
  const std::vector<Case> cases = Cases();
  std::ostringstream script;
  script << test::kTorchPreamble << "def ri(y):\n    return y.real + 2 * y.imag\n";
  // Each case's y, then (with `gradient`) d sum(y) / da and / db.
  std::vector<std::vector<std::vector<double>>> tact(cases.size());
  for (size_t c = 0; c < cases.size(); ++c) {
    const Case& k = cases[c];
    SCOPED_TRACE(k.torch);
    Tensor a = k.a.empty() ? RandomDoubles(kShape, 31 + c, k.lo, k.hi)
                           : Tensor::FromVector<double>(k.a, kShape);
    Tensor b = RandomDoubles(kShape, 71 + c, k.lo, k.hi);
    Scope s = Scope::NewRootScope();
    Output pa = Placeholder(s.WithOpName("a"), DT_DOUBLE);
    Output pb = Placeholder(s.WithOpName("b"), DT_DOUBLE);
    Output y = k.build(s, pa, pb);
    std::vector<Output> fetches = {y};
    if (k.gradient) {
      std::vector<Output> grads;
      Output total = Sum(s, y, Range(s, 0, Rank(s, y), 1));
      ASSERT_TRUE(AddSymbolicGradients(s, {total}, {pa, pb}, {}, &grads).ok());
      for (Output& g : grads) fetches.push_back(g.ok() ? g : ZerosLike(s, pb));
    }
    auto got = RunGraph(s, {pa, pb}, {a, b}, fetches);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    for (const Tensor& t : *got) tact[c].push_back(test::FlatDoubles(t));
    script << "a = " << test::TorchTensor(a) << ".requires_grad_()\n"
           << "b = " << test::TorchTensor(b) << ".requires_grad_()\n"
           << "z = torch.complex(a, b)\nw = torch.complex(b * 0.5, a - 1)\n"
           << "y = " << k.torch << "\nout(y)\n";
    if (k.gradient) {
      script << "y.sum().backward()\n"
             << "out(a.grad if a.grad is not None else torch.zeros(12))\n"
             << "out(b.grad if b.grad is not None else torch.zeros(12))\n";
    }
  }
  auto torch = test::RunTorchScript(script.str());
  ASSERT_TRUE(torch.ok()) << torch.status().ToString();
  size_t line = 0;
  for (size_t c = 0; c < cases.size(); ++c) {
    SCOPED_TRACE(cases[c].torch);
    for (size_t i = 0; i < tact[c].size(); ++i, ++line) {
      SCOPED_TRACE(i == 0 ? "values" : i == 1 ? "gradient for a" : "gradient for b");
      ASSERT_LT(line, torch->size());
      test::ExpectMatches(tact[c][i], (*torch)[line], 1e-10);
    }
  }
}

}  // namespace
}  // namespace tact

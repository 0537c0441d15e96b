// Every differentiable op's gradient against central differences (float64).
#include <gtest/gtest.h>

#include <functional>

#include "graph/gradients/gradients.h"
#include "graph/ops/all_ops.h"
#include "tests/gradients/gradient_checker.h"

namespace tact {
namespace {

constexpr double kTol = 1e-6;

// GradientErrorOf, or 1e9 after failing the test on an error.
double Check(const std::vector<TensorShape>& shapes, const BuildFromInputs& build,
             double lo = -1, double hi = 1) {
  auto err = GradientErrorOf(shapes, build, lo, hi);
  EXPECT_TRUE(err.ok()) << err.status().ToString();
  return err.ok() ? *err : 1e9;
}

#define UNARY_TEST(OP, LO, HI)                                                          \
  TEST(OpGradientsTest, OP) {                                                          \
    EXPECT_LT(Check({{2, 3}}, [](const Scope& s, const auto& x) { return OP(s, x[0]); }, \
                    LO, HI),                                                            \
              kTol);                                                                    \
  }
UNARY_TEST(Neg, -1, 1)
UNARY_TEST(Abs, 0.1, 1)
UNARY_TEST(Square, -1, 1)
UNARY_TEST(Sqrt, 0.5, 2)
UNARY_TEST(Rsqrt, 0.5, 2)
UNARY_TEST(Exp, -1, 1)
UNARY_TEST(Log, 0.5, 2)
UNARY_TEST(Sigmoid, -2, 2)
UNARY_TEST(Tanh, -2, 2)
UNARY_TEST(Relu, 0.1, 1)
UNARY_TEST(Elu, -1, -0.1)
UNARY_TEST(Relu6, 0.1, 1)
UNARY_TEST(Softplus, -2, 2)
UNARY_TEST(Identity, -1, 1)
UNARY_TEST(Softmax, -2, 2)
UNARY_TEST(LogSoftmax, -2, 2)
UNARY_TEST(Reciprocal, 0.5, 2)
UNARY_TEST(Sin, -2, 2)
UNARY_TEST(Cos, -2, 2)
UNARY_TEST(Tan, -1, 1)
UNARY_TEST(Asin, -0.8, 0.8)
UNARY_TEST(Acos, -0.8, 0.8)
UNARY_TEST(Atan, -2, 2)
UNARY_TEST(Sinh, -2, 2)
UNARY_TEST(Cosh, -2, 2)
UNARY_TEST(Log1p, -0.5, 2)
UNARY_TEST(Expm1, -1, 1)
UNARY_TEST(Erf, -2, 2)
UNARY_TEST(Erfc, -2, 2)
UNARY_TEST(Softsign, -2, 2)
UNARY_TEST(Selu, -2, 2)
UNARY_TEST(LeakyRelu, -1, 1)
UNARY_TEST(L2Loss, -1, 1)

#define BINARY_TEST(OP, LO, HI)                                                            \
  TEST(OpGradientsTest, OP##Broadcasting) {                                               \
    auto f = [](const Scope& s, const auto& x) { return OP(s, x[0], x[1]); };             \
    EXPECT_LT(Check({{2, 3}, {2, 3}}, f, LO, HI), kTol);                                  \
    EXPECT_LT(Check({{2, 3}, {3}}, f, LO, HI), kTol);                                     \
    EXPECT_LT(Check({{2, 1}, {1, 3}}, f, LO, HI), kTol);                                  \
    EXPECT_LT(Check({{}, {2, 2}}, f, LO, HI), kTol);                                      \
  }
BINARY_TEST(Add, -1, 1)
BINARY_TEST(Sub, -1, 1)
BINARY_TEST(Mul, -1, 1)
BINARY_TEST(Div, 0.5, 2)
BINARY_TEST(Pow, 0.5, 2)
BINARY_TEST(SquaredDifference, -1, 1)
BINARY_TEST(RealDiv, 0.5, 2)
BINARY_TEST(Atan2, 0.5, 2)

TEST(OpGradientsTest, UnsortedSegmentSum) {
  // Repeated, missing and (dropped) negative ids; ids of rank 1 and 2.
  EXPECT_LT(Check({{4, 3}},
                  [](const Scope& s, const auto& x) {
                    return UnsortedSegmentSum(s, x[0], Const(s, Tensor::FromVector<int32_t>({2, 0, 2, -1})),
                                              4);
                  }),
            kTol);
  EXPECT_LT(Check({{2, 2, 3}},
                  [](const Scope& s, const auto& x) {
                    Tensor ids = Tensor::FromVector<int64_t>({1, 1, 0, 3}, {2, 2});
                    return UnsortedSegmentSum(s, x[0], Const(s, ids), 4);
                  }),
            kTol);
}

TEST(OpGradientsTest, CumsumReverseBroadcastToTopK) {
  for (bool exclusive : {false, true}) {
    for (bool reverse : {false, true}) {
      EXPECT_LT(Check({{3, 4}},
                      [=](const Scope& s, const auto& x) { return Cumsum(s, x[0], 1, exclusive, reverse); }),
                kTol);
    }
  }
  EXPECT_LT(Check({{2, 3, 2}}, [](const Scope& s, const auto& x) { return ReverseV2(s, x[0], {0, 2}); }),
            kTol);
  EXPECT_LT(Check({{3, 1}}, [](const Scope& s, const auto& x) { return BroadcastTo(s, x[0], {2, 3, 4}); }),
            kTol);
  // Distinct random values: no tie can move under the checker's nudges.
  EXPECT_LT(Check({{2, 3, 5}}, [](const Scope& s, const auto& x) { return TopK(s, x[0], 3)[0]; }), kTol);
}

// The roundings pass no gradient (TensorFlow's rule): floor(x) * x between
// the integers 1 and 2 has the derivative floor(x) = 1, from the Mul alone.
TEST(OpGradientsTest, RoundingsPassNoGradient) {
  for (auto op : {Floor, Ceil, Rint, Round}) {
    EXPECT_LT(Check({{5}}, [op](const Scope& s, const auto& x) { return Mul(s, op(s, x[0]), x[0]); },
                    1.1, 1.4),
              kTol);
  }
}

// Between its jumps (x / y never near an integer here): d/dx = 1 and
// d/dy = -floor(x / y).
TEST(OpGradientsTest, FloorModBetweenItsJumps) {
  Scope s = Scope::NewRootScope();
  std::vector<Output> xs = {Placeholder(s.WithOpName("x"), DT_DOUBLE),
                            Placeholder(s.WithOpName("y"), DT_DOUBLE)};
  std::vector<Tensor> vals = {RandomDoubles({2, 3}, 5, 5.2, 5.8), RandomDoubles({3}, 6, -2.1, -2.0)};
  auto err = ComputeGradientError(s, xs, vals, FloorMod(s, xs[0], xs[1]));
  ASSERT_TRUE(err.ok()) << err.status().ToString();
  EXPECT_LT(*err, kTol);
}

TEST(OpGradientsTest, MaximumMinimum) {
  // Distinct random values: no ties, where the gradient is not defined.
  auto mx = [](const Scope& s, const auto& x) { return Maximum(s, x[0], x[1]); };
  auto mn = [](const Scope& s, const auto& x) { return Minimum(s, x[0], x[1]); };
  EXPECT_LT(Check({{2, 3}, {3}}, mx), kTol);
  EXPECT_LT(Check({{2, 3}, {3}}, mn), kTol);
}

TEST(OpGradientsTest, AddNCastSelect) {
  EXPECT_LT(Check({{2, 2}, {2, 2}},
                  [](const Scope& s, const auto& x) { return AddN(s, {x[0], x[1], x[0]}); }),
            kTol);
  EXPECT_LT(Check({{3}},
                  [](const Scope& s, const auto& x) {
                    return Cast(s, Mul(s, x[0], x[0]), DT_DOUBLE);
                  }),
            kTol);
  EXPECT_LT(Check({{4}, {4}},
                  [](const Scope& s, const auto& x) {
                    return Select(s, Greater(s, x[0], x[1]), Mul(s, x[0], x[1]), x[1]);
                  }),
            kTol);
}

TEST(OpGradientsTest, MatMulAllTransposes) {
  for (int ta = 0; ta < 2; ++ta) {
    for (int tb = 0; tb < 2; ++tb) {
      TensorShape a = ta ? TensorShape({3, 2}) : TensorShape({2, 3});
      TensorShape b = tb ? TensorShape({4, 3}) : TensorShape({3, 4});
      EXPECT_LT(Check({a, b},
                      [=](const Scope& s, const auto& x) {
                        return MatMul(s, x[0], x[1], ta, tb);
                      }),
                kTol)
          << ta << tb;
    }
  }
}

TEST(OpGradientsTest, BatchMatMul) {
  EXPECT_LT(Check({{2, 2, 3}, {2, 3, 2}},
                  [](const Scope& s, const auto& x) { return BatchMatMul(s, x[0], x[1]); }),
            kTol);
  EXPECT_LT(Check({{2, 3, 2}, {2, 2, 3}},
                  [](const Scope& s, const auto& x) {
                    return BatchMatMul(s, x[0], x[1], true, true);
                  }),
            kTol);
  // Broadcast batch dims: [2, 1] with [3] -> [2, 3].
  EXPECT_LT(Check({{2, 1, 2, 3}, {3, 3, 2}},
                  [](const Scope& s, const auto& x) { return BatchMatMul(s, x[0], x[1]); }),
            kTol);
}

TEST(OpGradientsTest, Reductions) {
  for (bool keep : {false, true}) {
    EXPECT_LT(Check({{2, 3}}, [=](const Scope& s, const auto& x) { return Sum(s, x[0], 1, keep); }),
              kTol);
    EXPECT_LT(Check({{2, 3}},
                    [=](const Scope& s, const auto& x) { return Mean(s, x[0], {0, 1}, keep); }),
              kTol);
    EXPECT_LT(Check({{2, 3}}, [=](const Scope& s, const auto& x) { return Max(s, x[0], 0, keep); }),
              kTol);
    EXPECT_LT(Check({{2, 3}},
                    [=](const Scope& s, const auto& x) { return Min(s, x[0], -1, keep); }),
              kTol);
    EXPECT_LT(Check({{2, 3}},
                    [=](const Scope& s, const auto& x) { return Prod(s, x[0], 1, keep); }, 0.5, 2),
              kTol);
  }
}

TEST(OpGradientsTest, ArrayOps) {
  EXPECT_LT(Check({{2, 3}}, [](const Scope& s, const auto& x) { return Reshape(s, x[0], {3, 2}); }),
            kTol);
  EXPECT_LT(Check({{2, 3}}, [](const Scope& s, const auto& x) { return ExpandDims(s, x[0], 1); }),
            kTol);
  EXPECT_LT(Check({{2, 1, 3}}, [](const Scope& s, const auto& x) { return Squeeze(s, x[0]); }),
            kTol);
  EXPECT_LT(Check({{2, 3, 4}},
                  [](const Scope& s, const auto& x) { return Transpose(s, x[0], {2, 0, 1}); }),
            kTol);
  EXPECT_LT(Check({{4, 3}},
                  [](const Scope& s, const auto& x) {
                    auto p = Split(s, 0, x[0], 2);
                    return Mul(s, p[0], p[1]);
                  }),
            kTol);
  EXPECT_LT(Check({{3}, {3}},
                  [](const Scope& s, const auto& x) { return Pack(s, {x[0], x[1]}, 1); }),
            kTol);
  EXPECT_LT(Check({{3, 2}},
                  [](const Scope& s, const auto& x) {
                    auto p = Unpack(s, x[0], 2, 1);
                    return Mul(s, p[0], p[1]);
                  }),
            kTol);
  EXPECT_LT(Check({{3, 4}},
                  [](const Scope& s, const auto& x) { return Slice(s, x[0], {1, 1}, {2, -1}); }),
            kTol);
  EXPECT_LT(Check({{2, 3}},
                  [](const Scope& s, const auto& x) {
                    return Pad(s, x[0], Const(s, Tensor::FromVector<int32_t>({1, 0, 0, 2}, {2, 2})));
                  }),
            kTol);
}

// StridedSlice's gradient for each kind of spec: ranges with strides (one
// negative), a shrunk index, a new axis with an ellipsis, masked ends.
TEST(OpGradientsTest, StridedSlice) {
  auto slice = [](std::vector<int32_t> b, std::vector<int32_t> e, std::vector<int32_t> st, int64_t begin_mask,
                  int64_t end_mask, int64_t ellipsis, int64_t new_axis, int64_t shrink) {
    return [=](const Scope& s, const std::vector<Output>& x) {
      return StridedSlice(s, x[0], Tensor::FromVector<int32_t>(b), Tensor::FromVector<int32_t>(e),
                          Tensor::FromVector<int32_t>(st), begin_mask, end_mask, ellipsis, new_axis, shrink);
    };
  };
  EXPECT_LT(Check({{4, 5}}, slice({1, 0}, {3, 5}, {1, 2}, 0, 0, 0, 0, 0)), kTol);
  EXPECT_LT(Check({{4, 5}}, slice({3, 4}, {0, 0}, {-1, -2}, 0, 0, 0, 0, 0)), kTol);
  EXPECT_LT(Check({{4, 5}}, slice({2, 0}, {3, 0}, {1, 1}, 2, 2, 0, 0, 1)), kTol);        // x[2, :]
  // x[..., None, 1:3]
  EXPECT_LT(Check({{3, 2, 4}}, slice({0, 0, 1}, {0, 0, 3}, {1, 1, 1}, 0, 0, 1, 2, 0)), kTol);
  EXPECT_LT(Check({{4, 5}}, slice({-3, 0}, {0, -1}, {1, 1}, 0, 1, 0, 0, 0)), kTol);      // x[-3:, :-1]
  // Second derivatives: the gradient of sum(x[1:3, ::2]^3) goes through
  // StridedSliceGrad, whose own gradient is the slice again.
  EXPECT_LT(Check({{4, 5}},
                  [&](const Scope& s, const std::vector<Output>& x) {
                    Output y = Sum(s, Pow(s, slice({1, 0}, {3, 5}, {1, 2}, 0, 0, 0, 0, 0)(s, x), 3.0), {0, 1});
                    std::vector<Output> g;
                    EXPECT_TRUE(AddSymbolicGradients(s, {y}, {x[0]}, {}, &g).ok());
                    return Sum(s, Square(s, g[0]), {0, 1});
                  }),
            kTol);
}

TEST(OpGradientsTest, ConcatTileGather) {
  EXPECT_LT(Check({{2, 3}, {2, 1}, {2, 2}},
                  [](const Scope& s, const auto& x) { return Concat(s, {x[0], x[1], x[2]}, 1); }),
            kTol);
  EXPECT_LT(Check({{2, 3}, {1, 3}},
                  [](const Scope& s, const auto& x) { return Concat(s, {x[0], x[1]}, -2); }),
            kTol);
  // TensorFlow's original Concat (concat_dim first): its shape, values and
  // gradient are ConcatV2's.
  EXPECT_LT(Check({{2, 3}, {2, 1}},
                  [](const Scope& s, const auto& x) {
                    Output c = OpBuilder(s, "Concat").Input(1).InputList({x[0], x[1]}).FinalizeOutput();
                    return c;
                  }),
            kTol);
  EXPECT_LT(Check({{2, 3}}, [](const Scope& s, const auto& x) { return Tile(s, x[0], {2, 3}); }),
            kTol);
  // Row 2 is picked twice: its gradient is the sum of both.
  EXPECT_LT(Check({{4, 3}},
                  [](const Scope& s, const auto& x) {
                    return Gather(s, x[0], Const(s, Tensor::FromVector<int32_t>({2, 0, 2}, {3})));
                  }),
            kTol);
  EXPECT_LT(Check({{4, 2}},
                  [](const Scope& s, const auto& x) {
                    return Gather(s, x[0], Const(s, Tensor::FromVector<int32_t>({1, 3, 3, 0}, {2, 2})));
                  }),
            kTol);
}

TEST(OpGradientsTest, NnOps) {
  EXPECT_LT(Check({{2, 3}, {3}}, [](const Scope& s, const auto& x) { return BiasAdd(s, x[0], x[1]); }),
            kTol);
  EXPECT_LT(Check({{1, 4, 4, 2}, {2, 2, 2, 3}},
                  [](const Scope& s, const auto& x) {
                    return Conv2D(s, x[0], x[1], {1, 1, 1, 1}, "SAME");
                  }),
            kTol);
  EXPECT_LT(Check({{1, 5, 5, 1}, {3, 3, 1, 2}},
                  [](const Scope& s, const auto& x) {
                    return Conv2D(s, x[0], x[1], {1, 2, 2, 1}, "VALID");
                  }),
            kTol);
  EXPECT_LT(Check({{1, 4, 4, 2}},
                  [](const Scope& s, const auto& x) {
                    return MaxPool(s, x[0], {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
                  }),
            kTol);
  EXPECT_LT(Check({{1, 4, 4, 2}},
                  [](const Scope& s, const auto& x) {
                    return AvgPool(s, x[0], {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME");
                  }),
            kTol);
  EXPECT_LT(Check({{3, 4}},
                  [](const Scope& s, const auto& x) {
                    return SparseSoftmaxCrossEntropyWithLogits(s, x[0], {1, 0, 3})[0];
                  }),
            kTol);
  // The labels a distribution per row (the features' gradient assumes
  // one), made by a Softmax so that their own gradient is checked too.
  EXPECT_LT(Check({{3, 4}, {3, 4}},
                  [](const Scope& s, const auto& x) {
                    return SoftmaxCrossEntropyWithLogits(s, x[0], Softmax(s, x[1]))[0];
                  }),
            kTol);
  // GatherV2 along a constant axis (0 is Gather's gradient) and along a
  // computed one, with repeated indices.
  for (int axis : {0, 1, -1}) {
    EXPECT_LT(Check({{3, 4, 2}},
                    [axis](const Scope& s, const auto& x) {
                      return GatherV2(s, x[0], Tensor::FromVector<int32_t>({1, 0, 1}), axis);
                    }),
              kTol)
        << "axis " << axis;
  }
  EXPECT_LT(Check({{3, 4}},
                  [](const Scope& s, const auto& x) {
                    Output axis = Sub(s, Rank(s, x[0]), 1);  // 1, known only at run time
                    return GatherV2(s, x[0], Tensor::FromVector<int64_t>({3, 3, 0}, {3, 1}), axis);
                  }),
            kTol);
  // GatherNd picking elements (one twice) and rows; ScatterNd adding two
  // updates into one place; SelectV2 broadcasting all three inputs.
  EXPECT_LT(Check({{3, 4}},
                  [](const Scope& s, const auto& x) {
                    return GatherNd(s, x[0], Tensor::FromVector<int32_t>({2, 1, 0, 3, 2, 1}, {3, 2}));
                  }),
            kTol);
  EXPECT_LT(Check({{3, 4, 2}},
                  [](const Scope& s, const auto& x) {
                    return GatherNd(s, x[0], Tensor::FromVector<int64_t>({1, 1, 0}, {3, 1}));
                  }),
            kTol);
  EXPECT_LT(Check({{3, 2}},
                  [](const Scope& s, const auto& x) {
                    return ScatterNd(s, Tensor::FromVector<int32_t>({1, 3, 1}, {3, 1}), x[0], {4, 2});
                  }),
            kTol);
  EXPECT_LT(Check({{3, 1}, {1, 4}, {4}},
                  [](const Scope& s, const auto& x) {
                    return SelectV2(s, Greater(s, x[0], 0.0), x[1], x[2]);
                  }),
            kTol);
  // ClipByValue with bounds of t's shape (each clipping some elements) and
  // with scalar bounds; MatrixBandPart's band of a batch of matrices.
  EXPECT_LT(Check({{3, 4}, {3, 4}, {3, 4}},
                  [](const Scope& s, const auto& x) {
                    return ClipByValue(s, x[0], Sub(s, x[1], 0.5), Add(s, x[2], 0.5));
                  }),
            kTol);
  EXPECT_LT(Check({{3, 4}, {}, {}},
                  [](const Scope& s, const auto& x) {
                    return ClipByValue(s, x[0], Sub(s, x[1], 0.3), Add(s, x[2], 0.3));
                  }),
            kTol);
  EXPECT_LT(Check({{2, 3, 4}},
                  [](const Scope& s, const auto& x) {
                    return MatrixBandPart(s, x[0], Tensor::Scalar<int64_t>(1),
                                          Tensor::Scalar<int64_t>(2));
                  }),
            kTol);
  // The backprop output (softmax(features) - labels) as a value, as a
  // second derivative or a gradient penalty uses it.
  EXPECT_LT(Check({{3, 4}},
                  [](const Scope& s, const auto& x) {
                    return SparseSoftmaxCrossEntropyWithLogits(s, x[0], {1, 0, 3})[1];
                  }),
            kTol);
  EXPECT_LT(Check({{3, 4}, {3, 4}},
                  [](const Scope& s, const auto& x) {
                    return SoftmaxCrossEntropyWithLogits(s, x[0], Softmax(s, x[1]))[1];
                  }),
            kTol);
  // Both outputs at once: the loss and a penalty on its gradient.
  EXPECT_LT(Check({{3, 4}, {3, 4}},
                  [](const Scope& s, const auto& x) {
                    auto xent = SoftmaxCrossEntropyWithLogits(s, x[0], Softmax(s, x[1]));
                    return Add(s, Sum(s, xent[0], 0), Sum(s, Square(s, xent[1]), {0, 1}));
                  }),
            kTol);
  // A second derivative: the squared norm of d loss / d logits, itself
  // differentiated (the gradient graph reads output 1 as a value).
  EXPECT_LT(Check({{3, 4}},
                  [](const Scope& s, const auto& x) {
                    Output loss = Sum(s, SparseSoftmaxCrossEntropyWithLogits(s, x[0], {1, 0, 3})[0], 0);
                    std::vector<Output> g;
                    EXPECT_TRUE(AddSymbolicGradients(s, {loss}, {x[0]}, {}, &g).ok());
                    return Sum(s, Square(s, g[0]), {0, 1});
                  }),
            kTol);
}

// The gradient ops' own gradients (found by grad_registry_walk_test), each
// against central differences.
TEST(OpGradientsTest, GradientOpsOfActivations) {
  auto check2 = [](auto op, double lo, double hi) {
    return Check({{2, 3}, {2, 3}}, [op](const Scope& s, const auto& x) { return op(s, x[0], x[1]); },
                 lo, hi);
  };
  EXPECT_LT(check2(Relu6Grad, 0.1, 1), kTol);
  EXPECT_LT(check2(EluGrad, -1, -0.1), kTol);
  EXPECT_LT(check2(SoftplusGrad, -2, 2), kTol);
  EXPECT_LT(check2(RsqrtGrad, 0.5, 2), kTol);
  EXPECT_LT(check2(SqrtGrad, 0.5, 2), kTol);
  EXPECT_LT(Check({{2, 3}}, [](const Scope& s, const auto& x) { return CheckNumerics(s, x[0], "x"); }),
            kTol);
}

TEST(OpGradientsTest, GradientOpsOfConvolutionAndPooling) {
  const std::vector<int64_t> stride1 = {1, 1, 1, 1}, stride2 = {1, 2, 2, 1};
  EXPECT_LT(Check({{2, 3, 4}}, [](const Scope& s, const auto& x) { return BiasAddGrad(s, x[0]); }),
            kTol);
  // Conv2DBackpropInput(sizes, filter, out_backprop) for a [1, 5, 5, 2] input.
  EXPECT_LT(Check({{3, 3, 2, 3}, {1, 3, 3, 3}},
                  [&](const Scope& s, const auto& x) {
                    Output sizes = Const(s, Tensor::FromVector<int32_t>({1, 5, 5, 2}, {4}));
                    return Conv2DBackpropInput(s, sizes, x[0], x[1], stride2, "SAME");
                  }),
            kTol);
  EXPECT_LT(Check({{1, 4, 4, 2}, {1, 4, 4, 3}},
                  [&](const Scope& s, const auto& x) {
                    Output sizes = Const(s, Tensor::FromVector<int32_t>({2, 2, 2, 3}, {4}));
                    return Conv2DBackpropFilter(s, x[0], sizes, x[1], stride1, "SAME");
                  }),
            kTol);
  // The depthwise convolution (multiplier 2) and its two gradient ops.
  EXPECT_LT(Check({{1, 5, 5, 2}, {3, 3, 2, 2}},
                  [&](const Scope& s, const auto& x) {
                    return DepthwiseConv2dNative(s, x[0], x[1], stride2, "SAME");
                  }),
            kTol);
  EXPECT_LT(Check({{3, 3, 2, 2}, {1, 3, 3, 4}},
                  [&](const Scope& s, const auto& x) {
                    Output sizes = Const(s, Tensor::FromVector<int32_t>({1, 5, 5, 2}, {4}));
                    return DepthwiseConv2dNativeBackpropInput(s, sizes, x[0], x[1], stride2, "SAME");
                  }),
            kTol);
  EXPECT_LT(Check({{1, 4, 4, 2}, {1, 4, 4, 4}},
                  [&](const Scope& s, const auto& x) {
                    Output sizes = Const(s, Tensor::FromVector<int32_t>({2, 2, 2, 2}, {4}));
                    return DepthwiseConv2dNativeBackpropFilter(s, x[0], sizes, x[1], stride1, "SAME");
                  }),
            kTol);
  // MaxPoolGrad(orig_input, orig_output, grad) and its gradient MaxPoolGradGrad.
  EXPECT_LT(Check({{1, 4, 4, 2}, {1, 2, 2, 2}, {1, 2, 2, 2}},
                  [&](const Scope& s, const auto& x) {
                    return MaxPoolGrad(s, x[0], x[1], x[2], {1, 3, 3, 1}, stride2, "SAME");
                  }),
            kTol);
  EXPECT_LT(Check({{1, 4, 4, 2}, {1, 2, 2, 2}, {1, 4, 4, 2}},
                  [&](const Scope& s, const auto& x) {
                    return MaxPoolGradGrad(s, x[0], x[1], x[2], {1, 3, 3, 1}, stride2, "SAME");
                  }),
            kTol);
  EXPECT_LT(Check({{1, 2, 2, 2}},
                  [&](const Scope& s, const auto& x) {
                    Output sizes = Const(s, Tensor::FromVector<int32_t>({1, 4, 4, 2}, {4}));
                    return AvgPoolGrad(s, sizes, x[0], {1, 3, 3, 1}, stride2, "SAME");
                  }),
            kTol);
}

// MaxPoolGradGrad by hand: each window's maximum picks its grad element.
TEST(OpGradientsTest, MaxPoolGradGradReadsGradAtEachMaximum) {
  Scope s = Scope::NewRootScope();
  Output x = Const(s, Tensor::FromVector<double>({1, 9, 3, 4, 5, 6, 7, 8, 2, 0, 1, 1, 3, 2, 0, 5},
                                                 {1, 4, 4, 1}));
  Output g = Const(s, Tensor::FromVector<double>({10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
                                                  23, 24, 25}, {1, 4, 4, 1}));
  Output pooled = MaxPool(s, x, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  Output gg = MaxPoolGradGrad(s, x, pooled, g, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  auto out = RunGraph(s, {}, {}, {gg});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // Maxima: 9 at (0,1), 8 at (1,3), 3 at (3,0), 5 at (3,3).
  const double* v = (*out)[0].data<double>();
  EXPECT_EQ(std::vector<double>(v, v + 4), (std::vector<double>{11, 17, 22, 25}));
}


// Second derivatives: the gradient graph differentiated again.
Output GradOf(const Scope& s, Output y, Output x) {
  std::vector<Output> g;
  EXPECT_TRUE(AddSymbolicGradients(s, {y}, {x}, {}, &g).ok());
  return g.empty() ? Output() : g[0];
}

TEST(OpGradientsTest, SecondDerivativesOfConvolutionAndPooling) {
  // d/dx of sum(g(x)^2) for each layer, whose gradient graph holds the
  // backprop ops, differentiated again.
  auto layer_check = [](const std::vector<TensorShape>& shapes, auto layer) {
    return Check(shapes, [layer](const Scope& s, const auto& x) {
      Output y = layer(s, x);
      return GradOf(s, Sum(s, Mul(s, y, y), {0, 1, 2, 3}), x[0]);
    });
  };
  EXPECT_LT(layer_check({{1, 4, 4, 2}, {2, 2, 2, 3}},
                        [](const Scope& s, const auto& x) {
                          return Conv2D(s, x[0], x[1], {1, 1, 1, 1}, "SAME");
                        }),
            kTol);
  EXPECT_LT(layer_check({{1, 4, 4, 2}},
                        [](const Scope& s, const auto& x) {
                          return MaxPool(s, x[0], {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
                        }),
            kTol);
  EXPECT_LT(layer_check({{1, 4, 4, 2}},
                        [](const Scope& s, const auto& x) {
                          return AvgPool(s, x[0], {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME");
                        }),
            kTol);
  EXPECT_LT(layer_check({{1, 2, 2, 3}, {3}},
                        [](const Scope& s, const auto& x) { return BiasAdd(s, x[0], x[1]); }),
            kTol);
}

TEST(OpGradientsTest, SecondDerivatives) {
  EXPECT_LT(Check({{3}}, [](const Scope& s, const auto& x) { return GradOf(s, Mul(s, Square(s, x[0]), x[0]), x[0]); }),
            kTol);
  EXPECT_LT(Check({{3}}, [](const Scope& s, const auto& x) { return GradOf(s, Tanh(s, x[0]), x[0]); }),
            kTol);
  EXPECT_LT(Check({{3}}, [](const Scope& s, const auto& x) { return GradOf(s, Sigmoid(s, x[0]), x[0]); }),
            kTol);
  EXPECT_LT(Check({{2, 3}, {3}},
                  [](const Scope& s, const auto& x) {
                    return GradOf(s, Mul(s, Mul(s, x[0], x[1]), x[1]), x[1]);
                  }),
            kTol);
  EXPECT_LT(Check({{2, 3}, {3, 2}},
                  [](const Scope& s, const auto& x) {
                    Output p = MatMul(s, x[0], x[1]);
                    return GradOf(s, Sum(s, Mul(s, p, p), {0, 1}), x[0]);
                  }),
            kTol);
  EXPECT_LT(Check({{4}},
                  [](const Scope& s, const auto& x) { return GradOf(s, Relu(s, Square(s, x[0])), x[0]); }),
            kTol);
  // The newer math ops' gradients are built from differentiable ops.
  for (auto op : {Sin, Cos, Tan, Atan, Erf, Log1p, Reciprocal, Softsign, Selu}) {
    EXPECT_LT(Check({{4}}, [op](const Scope& s, const auto& x) { return GradOf(s, op(s, x[0]), x[0]); },
                    0.2, 0.9),
              kTol);
  }
}

}  // namespace
}  // namespace tact

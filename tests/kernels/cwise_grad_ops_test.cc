#include <gtest/gtest.h>

#include <cmath>

#include "graph/ops/core_ops.h"
#include "graph/ops/math_ops.h"
#include "tests/kernels/cwise_test_util.h"

namespace tact {
namespace {

// (op, reference on (input 0, input 1), range of input 1).
struct GradCase {
  const char* op;
  std::function<double(double, double)> ref;
  double lo, hi;
};

const std::vector<GradCase>& GradCases() {
  static const std::vector<GradCase> cases = {
      {"ReluGrad", [](double g, double f) { return f > 0 ? g : 0; }, -2, 2},
      {"Relu6Grad", [](double g, double f) { return f > 0 && f < 6 ? g : 0; }, -2, 8},
      {"EluGrad", [](double g, double y) { return y < 0 ? g * (y + 1) : g; }, -1, 2},
      {"SoftplusGrad", [](double g, double f) { return g / (1 + std::exp(-f)); }, -5, 5},
  };
  return cases;
}

// The (y, dy) ops: input 0 is the forward output y.
const std::vector<GradCase>& YDyCases() {
  static const std::vector<GradCase> cases = {
      {"SigmoidGrad", [](double y, double dy) { return dy * y * (1 - y); }, 0.01, 0.99},
      {"TanhGrad", [](double y, double dy) { return dy * (1 - y * y); }, -0.99, 0.99},
      {"RsqrtGrad", [](double y, double dy) { return -0.5 * dy * y * y * y; }, 0.1, 3},
      {"SqrtGrad", [](double y, double dy) { return 0.5 * dy / y; }, 0.1, 3},
  };
  return cases;
}

template <typename T>
void CheckGrads() {
  uint32_t seed = 20;
  for (const TensorShape& shape : std::vector<TensorShape>{{}, {0}, {9}, {3, 4, 5}}) {
    for (const GradCase& c : GradCases()) {
      SCOPED_TRACE(std::string(c.op) + " " + shape.DebugString());
      Tensor g = test::Random<T>(shape, seed++);
      Tensor f = test::Random<T>(shape, seed++, c.lo, c.hi);
      test::ExpectClose(test::RunOne(c.op, {g, f}), shape, test::RefBroadcast(g, f, shape, c.ref),
                        2e-6, 1e-6);
    }
    for (const GradCase& c : YDyCases()) {
      SCOPED_TRACE(std::string(c.op) + " " + shape.DebugString());
      Tensor y = test::Random<T>(shape, seed++, c.lo, c.hi);
      Tensor dy = test::Random<T>(shape, seed++);
      test::ExpectClose(test::RunOne(c.op, {y, dy}), shape, test::RefBroadcast(y, dy, shape, c.ref),
                        2e-6, 1e-6);
    }
  }
}

TEST(CwiseGradOpsTest, MatchReference) {
  CheckGrads<float>();
  CheckGrads<double>();
}

// Each gradient agrees with a central difference of its forward op.
TEST(CwiseGradOpsTest, AgreeWithFiniteDifferences) {
  const double h = 1e-6;
  Tensor x = test::Random<double>({20}, 3, -2, 2);
  Tensor dy = test::Random<double>({20}, 4);
  for (auto [fwd, grad, uses_output] :
       std::vector<std::tuple<const char*, const char*, bool>>{{"Elu", "EluGrad", true},
                                                               {"Softplus", "SoftplusGrad", false},
                                                               {"Sigmoid", "SigmoidGrad", true},
                                                               {"Tanh", "TanhGrad", true}}) {
    SCOPED_TRACE(grad);
    Tensor y = test::RunOne(fwd, {x});
    Tensor g = std::string(grad).find("Sigmoid") != std::string::npos ||
                       std::string(grad).find("Tanh") != std::string::npos
                   ? test::RunOne(grad, {y, dy})
                   : test::RunOne(grad, {dy, uses_output ? y : x});
    std::vector<double> want(20);
    for (int i = 0; i < 20; ++i) {
      Tensor xp = x.DeepCopy(), xm = x.DeepCopy();
      xp.data<double>()[i] += h;
      xm.data<double>()[i] -= h;
      const double d = (test::RunOne(fwd, {xp}).data<double>()[i] -
                        test::RunOne(fwd, {xm}).data<double>()[i]) / (2 * h);
      want[i] = d * dy.data<double>()[i];
    }
    test::ExpectClose(g, {20}, want, 1e-5, 1e-7);
  }
}

TEST(CwiseGradOpsTest, ShapeMismatchIsAnError) {
  auto out = test::RunOp("ReluGrad", {test::Random<float>({2, 3}, 1), test::Random<float>({3}, 2)});
  test::ExpectError(out.status(), Code::kInvalidArgument,
                    "inputs must have the same shape, got [2,3] and [3]");
  out = test::RunOp("TanhGrad", {test::Random<double>({2}, 1), test::Random<float>({2}, 2)});
  test::ExpectError(out.status(), Code::kInvalidArgument, "must be double, given float");
  test::ExpectError(test::InferShape("SigmoidGrad", {PartialTensorShape({2}), PartialTensorShape({3})})
                        .status(),
                    Code::kInvalidArgument, "shapes must be equal");
}

TEST(CwiseGradOpsTest, ThreadedMatchesSingleThreadBitForBit) {
  Tensor g = test::Random<float>({400, 1000}, 1), f = test::Random<float>({400, 1000}, 2);
  for (const char* op : {"ReluGrad", "SoftplusGrad", "TanhGrad"}) {
    SCOPED_TRACE(op);
    EXPECT_TRUE(test::RunOne(op, {g, f}, {}, 1).BitwiseEqual(test::RunOne(op, {g, f}, {}, 4)));
  }
}

TEST(CwiseGradOpsTest, BuilderUsesTensorFlowInputNames) {
  Scope s = Scope::NewRootScope();
  Output x = Placeholder(s, DT_FLOAT);
  Output g = ReluGrad(s, x, x);
  Output e = EluGrad(s, x, x);
  Output t = TanhGrad(s, x, x);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(g.node->op_def().inputs[1].name, "features");
  EXPECT_EQ(e.node->op_def().inputs[1].name, "outputs");
  EXPECT_EQ(t.node->op_def().inputs[0].name, "y");
  EXPECT_EQ(t.type(), DT_FLOAT);
}

}  // namespace
}  // namespace tact

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "graph/ops/core_ops.h"
#include "graph/ops/math_ops.h"
#include "tests/kernels/cwise_test_util.h"

namespace tact {
namespace {

using test::CheckUnary;

double Sign(double x) { return (x > 0) - (x < 0); }
double Relu(double x) { return x > 0 ? x : 0; }

template <typename T>
void CheckSignedOps() {
  CheckUnary<T>("Neg", [](double x) { return -x; });
  CheckUnary<T>("Abs", [](double x) { return std::fabs(x); });
  CheckUnary<T>("Square", [](double x) { return x * x; });
  CheckUnary<T>("Sign", Sign);
  CheckUnary<T>("Relu", Relu);
}

TEST(CwiseUnaryOpsTest, SignedOpsMatchReference) {
  CheckSignedOps<float>();
  CheckSignedOps<double>();
  CheckSignedOps<int32_t>();
  CheckSignedOps<int64_t>();
}

template <typename T>
void CheckFloatOps() {
  CheckUnary<T>("Exp", [](double x) { return std::exp(x); });
  CheckUnary<T>("Log", [](double x) { return std::log(x); }, 0.05, 5);
  CheckUnary<T>("Sqrt", [](double x) { return std::sqrt(x); }, 0.05, 5);
  CheckUnary<T>("Rsqrt", [](double x) { return 1 / std::sqrt(x); }, 0.05, 5);
  CheckUnary<T>("Tanh", [](double x) { return std::tanh(x); });
  CheckUnary<T>("Sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); });
  CheckUnary<T>("Relu6", [](double x) { return std::min(std::max(x, 0.0), 6.0); }, -3, 9);
  CheckUnary<T>("Elu", [](double x) { return x < 0 ? std::exp(x) - 1 : x; });
  CheckUnary<T>("Softplus", [](double x) { return std::log(1 + std::exp(x)); }, -10, 10);
}

TEST(CwiseUnaryOpsTest, FloatOpsMatchReference) {
  CheckFloatOps<float>();
  CheckFloatOps<double>();
}

TEST(CwiseUnaryOpsTest, ExtremeInputsStayFinite) {
  // Softplus neither overflows for large x nor loses small results.
  Tensor x = Tensor::FromVector<float>({100.f, -80.f, 0.f});
  Tensor y = test::RunOne("Softplus", {x});
  EXPECT_FLOAT_EQ(y.data<float>()[0], 100.f);
  EXPECT_NEAR(y.data<float>()[1], std::exp(-80.0), 1e-6 * std::exp(-80.0));
  EXPECT_GT(y.data<float>()[1], 0.f);
  EXPECT_FLOAT_EQ(y.data<float>()[2], std::log(2.f));
  Tensor s = test::RunOne("Sigmoid", {Tensor::FromVector<float>({-1000.f, 1000.f})});
  EXPECT_EQ(s.data<float>()[0], 0.f);
  EXPECT_EQ(s.data<float>()[1], 1.f);
  // Sign keeps NaN; integer Neg and Abs of the minimum wrap.
  Tensor n = test::RunOne("Sign", {Tensor::Scalar<double>(std::nan(""))});
  EXPECT_TRUE(std::isnan(n.scalar<double>()));
  const int64_t min = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(test::RunOne("Neg", {Tensor::Scalar<int64_t>(min)}).scalar<int64_t>(), min);
  EXPECT_EQ(test::RunOne("Abs", {Tensor::Scalar<int64_t>(min)}).scalar<int64_t>(), min);
}

TEST(CwiseUnaryOpsTest, UnsupportedDtypesAreErrors) {
  auto out = test::RunOp("Exp", {Tensor::Scalar<int32_t>(1)});
  test::ExpectError(out.status(), Code::kInvalidArgument, "not in the allowed set");
  out = test::RunOp("Elu", {Tensor::Scalar<bool>(true)});
  test::ExpectError(out.status(), Code::kInvalidArgument, "not in the allowed set");
  out = test::RunOp("Sqrt", {Tensor::Scalar<int16_t>(4)});
  test::ExpectError(out.status(), Code::kInvalidArgument, "not in the allowed set");
}

TEST(CwiseUnaryOpsTest, ThreadedMatchesSingleThreadBitForBit) {
  // 399 * 1001 elements: not a whole number of SIMD packets, so the SIMD
  // kernels' scalar tail is exercised too.
  for (const char* op : {"Neg", "Exp", "Tanh", "Sigmoid", "Elu", "Softplus", "Relu"}) {
    SCOPED_TRACE(op);
    Tensor x = test::Random<float>({399, 1001}, 9);
    Tensor one = test::RunOne(op, {x}, {}, 1);
    Tensor four = test::RunOne(op, {x}, {}, 4);
    EXPECT_TRUE(one.BitwiseEqual(four));
  }
  Tensor x = test::Random<double>({300, 1000}, 10);
  test::ExpectClose(test::RunOne("Exp", {x}, {}, 4), {300, 1000},
                    test::RefUnary(x, [](double v) { return std::exp(v); }));
}

TEST(CwiseUnaryOpsTest, ShapeIsUnchangedAndBuilderAddsANode) {
  auto s = test::InferShape("Tanh", {PartialTensorShape({-1, 3})});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, PartialTensorShape({-1, 3}));
  Scope scope = Scope::NewRootScope();
  Output x = Placeholder(scope, DT_DOUBLE);
  Output y = Relu(scope, Sigmoid(scope, x));
  ASSERT_TRUE(scope.ok()) << scope.status().ToString();
  EXPECT_EQ(y.node->op(), "Relu");
  EXPECT_EQ(y.type(), DT_DOUBLE);
  EXPECT_EQ(y.node->op_def().inputs[0].name, "features");
}

}  // namespace
}  // namespace tact

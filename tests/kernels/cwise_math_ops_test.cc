// The element-wise math beyond the core set (kernels/cpu/cwise_math_ops.cc,
// the newer activations and binary ops) on float and double, against the C
// library in double, and at the values where a careless definition shows:
// halves for the roundings, tiny arguments for Log1p and Expm1, large ones
// for Erfc, NaN and infinities for the classifications.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "graph/ops/core_ops.h"
#include "graph/ops/math_ops.h"
#include "tests/kernels/cwise_test_util.h"

namespace tact {
namespace {

using test::CheckUnary;

template <typename T>
void CheckMathOps() {
  CheckUnary<T>("Reciprocal", [](double x) { return 1 / x; }, 0.2, 3);
  CheckUnary<T>("Sin", [](double x) { return std::sin(x); }, -6, 6);
  CheckUnary<T>("Cos", [](double x) { return std::cos(x); }, -6, 6);
  CheckUnary<T>("Tan", [](double x) { return std::tan(x); }, -1.2, 1.2);
  CheckUnary<T>("Asin", [](double x) { return std::asin(x); }, -0.99, 0.99);
  CheckUnary<T>("Acos", [](double x) { return std::acos(x); }, -0.99, 0.99);
  CheckUnary<T>("Atan", [](double x) { return std::atan(x); }, -20, 20);
  CheckUnary<T>("Sinh", [](double x) { return std::sinh(x); }, -4, 4);
  CheckUnary<T>("Cosh", [](double x) { return std::cosh(x); }, -4, 4);
  CheckUnary<T>("Log1p", [](double x) { return std::log1p(x); }, -0.9, 5);
  CheckUnary<T>("Expm1", [](double x) { return std::expm1(x); }, -3, 3);
  CheckUnary<T>("Erf", [](double x) { return std::erf(x); }, -3, 3);
  CheckUnary<T>("Erfc", [](double x) { return std::erfc(x); }, -3, 3);
  CheckUnary<T>("Floor", [](double x) { return std::floor(x); }, -5, 5);
  CheckUnary<T>("Ceil", [](double x) { return std::ceil(x); }, -5, 5);
  CheckUnary<T>("Rint", [](double x) { return std::nearbyint(x); }, -5, 5);
  CheckUnary<T>("Round", [](double x) { return std::nearbyint(x); }, -5, 5);
  CheckUnary<T>("Softsign", [](double x) { return x / (1 + std::fabs(x)); }, -5, 5);
  CheckUnary<T>("Selu", [](double x) {
    const double scale = 1.0507009873554804934193349852946;
    const double alpha = 1.6732632423543772848170429916717;
    return x < 0 ? scale * alpha * (std::exp(x) - 1) : scale * x;
  }, -4, 4);
  CheckUnary<T>("LeakyRelu", [](double x) { return x > 0 ? x : 0.2 * x; }, -3, 3);
  CheckUnary<T>("LeakyRelu", [](double x) { return x > 0 ? x : double(0.01f) * x; }, -3, 3,
                {{"alpha", AttrValue::Float(0.01f)}});
}

TEST(CwiseMathOpsTest, FloatAndDoubleMatchTheCLibrary) {
  CheckMathOps<float>();
  CheckMathOps<double>();
}

TEST(CwiseMathOpsTest, RoundingSendsHalvesToEven) {
  // NumPy's and TensorFlow's rule; C's round() would give 1, 3, -3 and 1.
  Tensor x = Tensor::FromVector<float>({0.5f, 1.5f, 2.5f, -2.5f, -0.5f, 0.49999997f, 3.7f, -3.7f});
  const std::vector<float> even = {0, 2, 2, -2, -0.f, 0, 4, -4};
  for (const char* op : {"Round", "Rint"}) {
    SCOPED_TRACE(op);
    Tensor y = test::RunOne(op, {x});
    for (int i = 0; i < 8; ++i) EXPECT_EQ(y.data<float>()[i], even[i]) << "element " << i;
  }
  Tensor f = test::RunOne("Floor", {x});
  Tensor c = test::RunOne("Ceil", {x});
  EXPECT_EQ(f.data<float>()[3], -3.f);
  EXPECT_EQ(c.data<float>()[3], -2.f);
  // Round keeps integers; the 16-bit types round in float.
  Tensor i = test::RunOne("Round", {Tensor::FromVector<int32_t>({-7, 0, 2147483647})});
  EXPECT_EQ(i.data<int32_t>()[2], 2147483647);
  EXPECT_EQ(i.data<int32_t>()[0], -7);
  Tensor h = test::RunOne("Round", {Tensor::FromVector<half>({half(2.5f), half(-1.5f)})});
  EXPECT_EQ(static_cast<float>(h.data<half>()[0]), 2.f);
  EXPECT_EQ(static_cast<float>(h.data<half>()[1]), -2.f);
}

TEST(CwiseMathOpsTest, SmallAndLargeArgumentsKeepTheirDigits) {
  // Where log(1 + x), e^x - 1 and 1 - erf(x) would lose every digit.
  Tensor tiny = Tensor::FromVector<double>({1e-12, -1e-15});
  Tensor l = test::RunOne("Log1p", {tiny});
  Tensor e = test::RunOne("Expm1", {tiny});
  EXPECT_NEAR(l.data<double>()[0], 1e-12 - 0.5e-24, 1e-27);
  EXPECT_NEAR(e.data<double>()[1], -1e-15, 1e-29);
  Tensor c = test::RunOne("Erfc", {Tensor::FromVector<double>({6.0, 10.0})});
  EXPECT_NEAR(c.data<double>()[0], 2.1519736712498913e-17, 1e-30);
  EXPECT_GT(c.data<double>()[1], 0.0);
  Tensor f = test::RunOne("Log1p", {Tensor::FromVector<float>({1e-7f, -1.f})});
  EXPECT_NEAR(f.data<float>()[0], 1e-7f, 1e-13f);
  EXPECT_EQ(f.data<float>()[1], -std::numeric_limits<float>::infinity());
}

TEST(CwiseMathOpsTest, ClassificationsGiveBool) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = Tensor::FromVector<float>({1.f, -inf, inf, nan, 0.f, -nan});
  const std::vector<bool> is_nan = {false, false, false, true, false, true};
  const std::vector<bool> is_inf = {false, true, true, false, false, false};
  for (const char* op : {"IsNan", "IsInf", "IsFinite"}) {
    SCOPED_TRACE(op);
    Tensor y = test::RunOne(op, {x});
    ASSERT_EQ(y.dtype(), DT_BOOL);
    for (int i = 0; i < 6; ++i) {
      const bool want = std::string(op) == "IsNan"   ? is_nan[i]
                        : std::string(op) == "IsInf" ? is_inf[i]
                                                     : !is_nan[i] && !is_inf[i];
      EXPECT_EQ(y.data<bool>()[i], want) << "element " << i;
    }
  }
  Tensor b = test::RunOne("IsNan", {Tensor::FromVector<bfloat16>({bfloat16(nan), bfloat16(1.f)})});
  EXPECT_TRUE(b.data<bool>()[0]);
  EXPECT_FALSE(b.data<bool>()[1]);
}

TEST(CwiseMathOpsTest, RealDivAndAtan2Broadcast) {
  for (uint32_t seed : {1u, 2u}) {
    Tensor x = test::Random<double>({2, 3}, seed, -3, 3);
    Tensor y = test::Random<double>({3}, seed + 10, 0.5, 3);
    test::ExpectClose(test::RunOne("RealDiv", {x, y}), {2, 3},
                      test::RefBroadcast(x, y, {2, 3}, [](double a, double b) { return a / b; }));
    Tensor neg_y = test::Random<double>({2, 1}, seed + 20, -3, 3);
    test::ExpectClose(test::RunOne("Atan2", {x, neg_y}), {2, 3},
                      test::RefBroadcast(x, neg_y, {2, 3},
                                         [](double a, double b) { return std::atan2(a, b); }));
  }
  // Every quadrant, and the signed zeros C gives.
  Tensor y = Tensor::FromVector<float>({1, 1, -1, -1, 0});
  Tensor x = Tensor::FromVector<float>({1, -1, -1, 1, -1});
  Tensor z = test::RunOne("Atan2", {y, x});
  const float pi = 3.14159265358979f;
  const std::vector<float> want = {pi / 4, 3 * pi / 4, -3 * pi / 4, -pi / 4, pi};
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(z.data<float>()[i], want[i], 1e-6f) << "element " << i;
}

TEST(CwiseMathOpsTest, ComplexPartsAndConjugates) {
  Tensor z = Tensor::FromVector<complex128>({{1.5, -2}, {0, 3}, {-0.25, 0}});
  Tensor conj = test::RunOne("Conj", {z});
  Tensor re = test::RunOne("Real", {z}, {{"Tout", AttrValue::Type(DT_DOUBLE)}});
  Tensor im = test::RunOne("Imag", {z}, {{"Tout", AttrValue::Type(DT_DOUBLE)}});
  ASSERT_EQ(re.dtype(), DT_DOUBLE);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(conj.data<complex128>()[i], std::conj(z.data<complex128>()[i]));
    EXPECT_EQ(re.data<double>()[i], z.data<complex128>()[i].real());
    EXPECT_EQ(im.data<double>()[i], z.data<complex128>()[i].imag());
  }
  // Complex broadcasts its parts: [2, 1] real parts with [3] imaginary ones.
  Tensor c = test::RunOne("Complex", {Tensor::FromVector<float>({1, 2}, {2, 1}),
                                      Tensor::FromVector<float>({-1, 0, 5})},
                          {{"Tout", AttrValue::Type(DT_COMPLEX64)}});
  ASSERT_EQ(c.shape(), TensorShape({2, 3}));
  EXPECT_EQ(c.data<complex64>()[2], complex64(1, 5));
  EXPECT_EQ(c.data<complex64>()[3], complex64(2, -1));
  // The builders pick the part's type from the number's.
  Scope s = Scope::NewRootScope();
  Output z64 = Placeholder(s, DT_COMPLEX64);
  EXPECT_EQ(Real(s, z64).type(), DT_FLOAT);
  EXPECT_EQ(Imag(s, Placeholder(s, DT_COMPLEX128)).type(), DT_DOUBLE);
  EXPECT_EQ(Complex(s, Placeholder(s, DT_DOUBLE), 1.0).type(), DT_COMPLEX128);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  auto real_of_float = test::RunOp("Real", {Tensor::Scalar<float>(1)});
  test::ExpectError(real_of_float.status(), Code::kInvalidArgument, "not in the allowed set");
}

TEST(CwiseMathOpsTest, ThreadedMatchesSingleThreadBitForBit) {
  // Not a whole number of SIMD packets, so the Eigen kernels' tails run too.
  for (const char* op : {"Sin", "Cos", "Log1p", "Expm1", "Atan", "Selu", "Softsign", "Erf"}) {
    SCOPED_TRACE(op);
    Tensor x = test::Random<float>({399, 1001}, 9, -0.9, 3);
    Tensor one = test::RunOne(op, {x}, {}, 1);
    Tensor four = test::RunOne(op, {x}, {}, 4);
    EXPECT_TRUE(one.BitwiseEqual(four));
  }
}

TEST(CwiseMathOpsTest, BadInputsAreClearErrors) {
  auto out = test::RunOp("Sin", {Tensor::Scalar<int32_t>(1)});
  test::ExpectError(out.status(), Code::kInvalidArgument, "not in the allowed set");
  out = test::RunOp("IsNan", {Tensor::Scalar<int64_t>(1)});
  test::ExpectError(out.status(), Code::kInvalidArgument, "not in the allowed set");
  out = test::RunOp("Atan2", {Tensor::FromVector<float>({1, 2}), Tensor::FromVector<float>({1, 2, 3})});
  test::ExpectError(out.status(), Code::kInvalidArgument, "incompatible shapes");
}

TEST(CwiseMathOpsTest, BuildersUseTensorFlowsNamesAndAttrs) {
  Scope s = Scope::NewRootScope();
  Output x = Placeholder(s, DT_FLOAT);
  Output leaky = LeakyRelu(s, x, 0.1f);
  Output angle = Atan2(s, x, Cos(s, x));
  Output nan = IsNan(s, Round(s, x));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  float alpha = 0;
  ASSERT_TRUE(GetAttr(leaky.node->attrs(), "alpha", &alpha).ok());
  EXPECT_FLOAT_EQ(alpha, 0.1f);
  EXPECT_EQ(leaky.node->op_def().inputs[0].name, "features");
  EXPECT_EQ(angle.node->op_def().inputs[0].name, "y");
  EXPECT_EQ(nan.type(), DT_BOOL);
  auto shape = test::InferShape("IsFinite", {PartialTensorShape({-1, 4})});
  ASSERT_TRUE(shape.ok());
  EXPECT_EQ(*shape, PartialTensorShape({-1, 4}));
}

}  // namespace
}  // namespace tact

// The kernels for half, bfloat16, complex and the small integers, each
// checked against the same op computed in double (complex128 for complex
// types) on the very values the kernel saw, the result rounded to the
// kernel's type: half and bfloat16 compute in float and round once, so they
// agree with the double result to within an ulp or two of their own type;
// integer results agree exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/numeric_types.h"
#include "tests/kernels/kernel_test_util.h"

namespace tact {
namespace {

using Complex = std::complex<double>;

template <typename T>
T FromComplex(Complex v) {
  if constexpr (kIsComplex<T>) {
    return T(static_cast<typename T::value_type>(v.real()),
             static_cast<typename T::value_type>(v.imag()));
  } else if constexpr (kIs16BitFloat<T>) {
    return T(static_cast<float>(v.real()));
  } else if constexpr (std::is_same_v<T, bool>) {
    return v.real() != 0;
  } else {
    return static_cast<T>(v.real());  // integers truncate, as integer division does
  }
}

template <typename T>
Complex ToComplex(const T& v) {
  if constexpr (kIsComplex<T>) {
    return Complex(v.real(), v.imag());
  } else if constexpr (kIs16BitFloat<T>) {
    return static_cast<float>(v);
  } else {
    return static_cast<double>(v);
  }
}

Tensor Make(DataType dtype, const TensorShape& shape, const std::vector<Complex>& values) {
  Tensor t(dtype, shape);
  VisitDataType(dtype, [&]<typename T>() {
    if constexpr (!std::is_same_v<T, std::string>) {
      for (int64_t i = 0; i < t.NumElements(); ++i) t.data<T>()[i] = FromComplex<T>(values[i]);
    }
  });
  return t;
}

std::vector<Complex> Values(const Tensor& t) {
  std::vector<Complex> out(t.NumElements());
  VisitDataType(t.dtype(), [&]<typename T>() {
    if constexpr (!std::is_same_v<T, std::string>) {
      for (int64_t i = 0; i < t.NumElements(); ++i) out[i] = ToComplex(t.data<T>()[i]);
    }
  });
  return out;
}

// How far a result may be from the rounded reference, relative to
// max(1, |reference|): two units in the last place of the type.
double Tolerance(DataType dtype) {
  switch (dtype) {
    case DT_HALF: return std::ldexp(1.0, -9);
    case DT_BFLOAT16: return std::ldexp(1.0, -6);
    case DT_FLOAT: case DT_COMPLEX64: return 1e-5;
    case DT_DOUBLE: case DT_COMPLEX128: return 1e-12;
    default: return 0;  // integers and bool: exact
  }
}

DataType ReferenceType(DataType dtype) {
  return DataTypeIsComplex(dtype) ? DT_COMPLEX128 : DT_DOUBLE;
}

// The values inputs are drawn from.
enum class Domain {
  kAny,       // [-3, 3] (integers: whole numbers in [-6, 6], or [0, 6] unsigned)
  kPositive,  // [0.5, 3] (complex: anywhere but near 0)
  kNonZero,   // kAny without values near 0 (divisors)
  kExponent,  // whole numbers in [0, 3]
  kUnit,      // (-1, 1): asin's and acos's domain
};

std::vector<Complex> Draw(DataType dtype, Domain domain, int64_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-3, 3);
  std::vector<Complex> out(n);
  for (Complex& v : out) {
    double re = dist(gen), im = DataTypeIsComplex(dtype) ? dist(gen) : 0;
    if (domain == Domain::kPositive && !DataTypeIsComplex(dtype)) re = 0.5 + std::fabs(re) * 2.5 / 3;
    if (domain == Domain::kExponent) re = std::floor(std::fabs(re)) , im = 0;
    if (domain == Domain::kUnit) re *= 0.3;
    if (DataTypeIsInteger(dtype)) re = std::round(re * 2);
    if (DataTypeIsInteger(dtype) && !DataTypeIsSigned(dtype)) re = std::fabs(re);
    const bool away_from_zero = domain == Domain::kPositive || domain == Domain::kNonZero;
    if (away_from_zero && std::abs(Complex(re, im)) < 0.5) {
      re = 1.5;  // away from zero (and 3 for integers)
      if (DataTypeIsInteger(dtype)) re = 3;
    }
    v = Complex(re, im);
  }
  return out;
}

struct Input {
  TensorShape shape;
  Domain domain = Domain::kAny;
};

// Runs `op` on inputs of `dtype` and on the same values in the reference
// type, and compares.
void CheckAgainstReference(const std::string& op, DataType dtype, const std::vector<Input>& inputs,
                           AttrMap attrs = {}) {
  SCOPED_TRACE(op + " on " + DataTypeString(dtype));
  const DataType ref_type = ReferenceType(dtype);
  std::vector<Tensor> args, ref_args;
  uint32_t seed = 1;
  for (const Input& in : inputs) {
    const Tensor t = Make(dtype, in.shape, Draw(dtype, in.domain, in.shape.num_elements(), seed++));
    args.push_back(t);
    ref_args.push_back(Make(ref_type, in.shape, Values(t)));
  }
  StatusOr<std::vector<Tensor>> got = test::RunOp(op, args, attrs);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  StatusOr<std::vector<Tensor>> want = test::RunOp(op, ref_args, attrs);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  const Tensor& g = (*got)[0];
  const Tensor& w = (*want)[0];
  ASSERT_EQ(g.shape(), w.shape());
  // The reference rounded to the output's type (bool and index outputs stay).
  const DataType out_type = g.dtype();
  const std::vector<Complex> rounded = Values(Make(out_type, w.shape(), Values(w)));
  const std::vector<Complex> values = Values(g);
  const double tol = Tolerance(out_type);
  for (size_t i = 0; i < values.size(); ++i) {
    const double scale = std::max(1.0, std::abs(rounded[i]));
    EXPECT_LE(std::abs(values[i] - rounded[i]), tol * scale)
        << "element " << i << ": got " << values[i] << ", reference " << Values(w)[i];
  }
}

const std::vector<DataType> kFloating16 = {DT_HALF, DT_BFLOAT16};
const std::vector<DataType> kComplex = {DT_COMPLEX64, DT_COMPLEX128};
const std::vector<DataType> kSmallInts = {DT_UINT8, DT_INT8, DT_INT16};

std::vector<DataType> Join(std::initializer_list<std::vector<DataType>> lists) {
  std::vector<DataType> out;
  for (const auto& l : lists) out.insert(out.end(), l.begin(), l.end());
  return out;
}

TEST(DtypeBreadthTest, BinaryArithmeticMatchesDouble) {
  const Input x{TensorShape({2, 3})}, y_row{TensorShape({3})};
  const Input divisor{TensorShape({3}), Domain::kNonZero};
  for (DataType t : Join({kFloating16, kComplex, kSmallInts})) {
    for (const char* op : {"Add", "Sub", "Mul"}) CheckAgainstReference(op, t, {x, y_row});
    CheckAgainstReference("Div", t, {x, divisor});
  }
  for (DataType t : Join({kFloating16, kSmallInts})) {
    CheckAgainstReference("Maximum", t, {x, y_row});
    CheckAgainstReference("Minimum", t, {x, y_row});
  }
  const Input base{TensorShape({2, 3}), Domain::kPositive};
  const Input exponent{TensorShape({3}), Domain::kExponent};
  for (DataType t : Join({kFloating16, kComplex, {DT_INT32, DT_INT64}})) {
    CheckAgainstReference("Pow", t, {base, exponent});
    CheckAgainstReference("SquaredDifference", t, {x, y_row});
  }
}

TEST(DtypeBreadthTest, ComparisonsMatchDouble) {
  // Whole numbers in a small range (the integer draw), so that some compare equal.
  const Input x{TensorShape({4, 5})}, y{TensorShape({5})};
  for (DataType t : Join({kFloating16, kComplex, kSmallInts})) {
    CheckAgainstReference("Equal", t, {x, x});
    CheckAgainstReference("NotEqual", t, {x, y});
  }
  for (DataType t : Join({kFloating16, kSmallInts})) {
    for (const char* op : {"Less", "LessEqual", "Greater", "GreaterEqual"}) {
      CheckAgainstReference(op, t, {x, y});
    }
  }
}

TEST(DtypeBreadthTest, UnaryOpsMatchDouble) {
  const Input x{TensorShape({3, 7})}, positive{TensorShape({3, 7}), Domain::kPositive};
  for (DataType t : Join({kFloating16, kComplex, {DT_INT8, DT_INT16}})) {
    for (const char* op : {"Neg", "Square", "Sign"}) CheckAgainstReference(op, t, {x});
  }
  for (DataType t : Join({kFloating16, {DT_INT8, DT_INT16}})) CheckAgainstReference("Abs", t, {x});
  for (DataType t : Join({kFloating16, kSmallInts, {DT_INT32, DT_INT64}})) {
    CheckAgainstReference("Relu", t, {x});
    CheckAgainstReference("Relu6", t, {Input{TensorShape({3, 7})}});
  }
  for (DataType t : Join({kFloating16, kComplex})) {
    for (const char* op : {"Exp", "Tanh", "Sigmoid"}) CheckAgainstReference(op, t, {x});
    for (const char* op : {"Log", "Sqrt", "Rsqrt"}) CheckAgainstReference(op, t, {positive});
  }
  for (DataType t : kFloating16) {
    CheckAgainstReference("Elu", t, {x});
    CheckAgainstReference("Softplus", t, {x});
  }
}

TEST(DtypeBreadthTest, MoreMathMatchesDouble) {
  const Input x{TensorShape({3, 7})}, positive{TensorShape({3, 7}), Domain::kPositive};
  const Input unit{TensorShape({3, 7}), Domain::kUnit};
  const Input nonzero{TensorShape({3, 7}), Domain::kNonZero}, row{TensorShape({7})};
  for (DataType t : Join({kFloating16, kComplex})) {
    for (const char* op : {"Sin", "Cos", "Sinh", "Cosh", "Expm1"}) CheckAgainstReference(op, t, {x});
    CheckAgainstReference("Tan", t, {unit});
    CheckAgainstReference("Log1p", t, {positive});
    CheckAgainstReference("Reciprocal", t, {nonzero});
    CheckAgainstReference("RealDiv", t, {x, Input{TensorShape({7}), Domain::kNonZero}});
  }
  for (DataType t : kFloating16) {
    for (const char* op : {"Asin", "Acos"}) CheckAgainstReference(op, t, {unit});
    for (const char* op : {"Atan", "Erf", "Erfc", "Floor", "Ceil", "Rint", "Round", "Softsign",
                           "Selu", "LeakyRelu", "IsNan", "IsInf", "IsFinite", "L2Loss"}) {
      CheckAgainstReference(op, t, {x});
    }
    CheckAgainstReference("Atan2", t, {x, row});
  }
  for (DataType t : {DT_INT8, DT_INT16}) CheckAgainstReference("Round", t, {x});
}

TEST(DtypeBreadthTest, ActivationGradientsMatchDouble) {
  const Input a{TensorShape({2, 5})}, nonzero{TensorShape({2, 5}), Domain::kNonZero};
  for (DataType t : kFloating16) {
    for (const char* op : {"ReluGrad", "Relu6Grad", "EluGrad", "SoftplusGrad"}) {
      CheckAgainstReference(op, t, {a, a});
    }
  }
  for (DataType t : Join({kFloating16, kComplex})) {
    for (const char* op : {"SigmoidGrad", "TanhGrad", "RsqrtGrad"}) CheckAgainstReference(op, t, {a, a});
    CheckAgainstReference("SqrtGrad", t, {nonzero, a});
  }
}

TEST(DtypeBreadthTest, ComplexGradientsConjugateTheDerivative) {
  // TensorFlow's rule for holomorphic functions: dx = dy * conj(f'(x)).
  const std::complex<double> y(0.3, -0.7), dy(1.5, 0.25);
  const Tensor yt = Tensor::Scalar<complex128>(y), dyt = Tensor::Scalar<complex128>(dy);
  auto run = [&](const char* op) { return test::RunOp(op, {yt, dyt})->at(0).scalar<complex128>(); };
  EXPECT_LT(std::abs(run("SigmoidGrad") - dy * std::conj(y * (1.0 - y))), 1e-12);
  EXPECT_LT(std::abs(run("TanhGrad") - dy * std::conj(1.0 - y * y)), 1e-12);
  EXPECT_LT(std::abs(run("SqrtGrad") - 0.5 * dy / std::conj(y)), 1e-12);
  EXPECT_LT(std::abs(run("RsqrtGrad") - dy * std::conj(-0.5 * y * y * y)), 1e-12);
}

TEST(DtypeBreadthTest, ComplexAndIntegerDefinitionsAreTensorFlows) {
  const complex128 a(1, 2), b(-0.5, 4);
  auto scalar = [](const char* op, const std::vector<Tensor>& in) {
    return test::RunOp(op, in)->at(0);
  };
  const Tensor ta = Tensor::Scalar<complex128>(a), tb = Tensor::Scalar<complex128>(b);
  // |a - b|^2, not (a - b)^2.
  EXPECT_LT(std::abs(scalar("SquaredDifference", {ta, tb}).scalar<complex128>() -
                     std::norm(a - b)), 1e-12);
  EXPECT_LT(std::abs(scalar("Sign", {ta}).scalar<complex128>() - a / std::abs(a)), 1e-12);
  EXPECT_EQ(scalar("Sign", {Tensor::Scalar<complex128>(0)}).scalar<complex128>(), complex128(0));
  EXPECT_EQ(scalar("Pow", {Tensor::Scalar<int64_t>(-3), Tensor::Scalar<int64_t>(5)}).scalar<int64_t>(),
            -243);
  EXPECT_EQ(scalar("Pow", {Tensor::Scalar<int32_t>(7), Tensor::Scalar<int32_t>(0)}).scalar<int32_t>(), 1);
  // int8 arithmetic wraps: 100 + 100 = 200 - 256.
  EXPECT_EQ(scalar("Add", {Tensor::Scalar<int8_t>(100), Tensor::Scalar<int8_t>(100)}).scalar<int8_t>(),
            -56);
}

TEST(DtypeBreadthTest, ReductionsMatchDouble) {
  const Input x{TensorShape({3, 4, 5})};
  for (int axis : {0, 1, 2}) {
    const Tensor axes = Tensor::Scalar<int32_t>(axis);
    for (DataType t : Join({kFloating16, kComplex, kSmallInts})) {
      for (const char* op : {"Sum", "Mean", "Prod"}) {
        SCOPED_TRACE(axis);
        const Tensor in = Make(t, x.shape, Draw(t, Domain::kAny, x.shape.num_elements(), 7));
        const Tensor ref_in = Make(ReferenceType(t), x.shape, Values(in));
        auto got = test::RunOp(op, {in, axes});
        auto want = test::RunOp(op, {ref_in, axes});
        ASSERT_TRUE(got.ok() && want.ok()) << got.status().ToString() << want.status().ToString();
        const std::vector<Complex> g = Values((*got)[0]);
        const std::vector<Complex> w = Values(Make(t, (*want)[0].shape(), Values((*want)[0])));
        for (size_t i = 0; i < g.size(); ++i) {
          EXPECT_LE(std::abs(g[i] - w[i]), Tolerance(t) * std::max(1.0, std::abs(w[i])))
              << op << " on " << DataTypeString(t) << " element " << i;
        }
      }
    }
    for (DataType t : Join({kFloating16, kSmallInts})) {
      for (const char* op : {"Max", "Min", "ArgMax", "ArgMin"}) {
        const Tensor in = Make(t, x.shape, Draw(t, Domain::kAny, x.shape.num_elements(), 9));
        auto got = test::RunOp(op, {in, axes});
        auto want = test::RunOp(op, {Make(DT_DOUBLE, x.shape, Values(in)), axes});
        ASSERT_TRUE(got.ok() && want.ok()) << op << " on " << DataTypeString(t);
        EXPECT_EQ(Values((*got)[0]), Values((*want)[0])) << op << " on " << DataTypeString(t);
      }
    }
  }
}

TEST(DtypeBreadthTest, MeanOfSmallIntegersIsNotOfAWrappedSum) {
  const Tensor x = Tensor::FromVector<int8_t>({100, 100, 100, 90}, {4});
  auto out = test::RunOp("Mean", {x, Tensor::Scalar<int32_t>(0)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].scalar<int8_t>(), 97);  // 390 / 4, truncated
  // Sum wraps, as TensorFlow's does: 390 - 256.
  EXPECT_EQ(test::RunOp("Sum", {x, Tensor::Scalar<int32_t>(0)})->at(0).scalar<int8_t>(), -122);
}

TEST(DtypeBreadthTest, AddNMatchesDouble) {
  const Input x{TensorShape({4, 3})};
  for (DataType t : Join({kFloating16, kComplex, kSmallInts})) CheckAgainstReference("AddN", t, {x, x, x});
}

TEST(DtypeBreadthTest, MatMulMatchesDouble) {
  for (DataType t : Join({kFloating16, kComplex, {DT_INT32, DT_INT64}})) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        const Input a{ta ? TensorShape({7, 5}) : TensorShape({5, 7})};
        const Input b{tb ? TensorShape({4, 7}) : TensorShape({7, 4})};
        AttrMap attrs = {{"transpose_a", AttrValue::Bool(ta)}, {"transpose_b", AttrValue::Bool(tb)}};
        CheckAgainstReference("MatMul", t, {a, b}, attrs);
        AttrMap adj = {{"adj_x", AttrValue::Bool(ta)}, {"adj_y", AttrValue::Bool(tb)}};
        const Input x{ta ? TensorShape({2, 7, 5}) : TensorShape({2, 5, 7})};
        const Input y{tb ? TensorShape({4, 7}) : TensorShape({7, 4})};
        CheckAgainstReference("BatchMatMul", t, {x, y}, adj);
      }
    }
  }
}

TEST(DtypeBreadthTest, BatchMatMulAdjointConjugatesComplexOperands) {
  // x is [1, 2, 2] taken as its adjoint; y is [1, 2, 1]: out = x^H y, by hand.
  const std::vector<complex64> xv = {{1, 2}, {3, -1}, {0, 1}, {2, 2}};
  const std::vector<complex64> yv = {{1, 1}, {-2, 0.5}};
  const Tensor x = Tensor::FromVector<complex64>(xv, {1, 2, 2});
  const Tensor y = Tensor::FromVector<complex64>(yv, {1, 2, 1});
  auto out = test::RunOp("BatchMatMul", {x, y}, {{"adj_x", AttrValue::Bool(true)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  for (int i = 0; i < 2; ++i) {
    const complex64 want = std::conj(xv[0 * 2 + i]) * yv[0] + std::conj(xv[1 * 2 + i]) * yv[1];
    EXPECT_LT(std::abs((*out)[0].data<complex64>()[i] - want), 1e-5) << i;
  }
}

TEST(DtypeBreadthTest, IntegerMatMulWraps) {
  const int32_t big = 1 << 20;
  auto out = test::RunOp("MatMul", {Tensor::FromVector<int32_t>({big, big}, {1, 2}),
                                    Tensor::FromVector<int32_t>({big, 3}, {2, 1})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // 2^40 + 3 * 2^20 wraps to 3 * 2^20 in 32 bits.
  EXPECT_EQ((*out)[0].scalar<int32_t>(), 3 * big);
}

TEST(DtypeBreadthTest, FillAndFriendsOnEveryType) {
  for (DataType t : Join({kFloating16, kComplex, kSmallInts, {DT_UINT16, DT_UINT32, DT_UINT64}})) {
    SCOPED_TRACE(DataTypeString(t));
    const Tensor value = Make(t, TensorShape({}), {Complex(2, 1)});
    auto filled = test::RunOp("Fill", {Tensor::FromVector<int32_t>({2, 3}, {2}), value});
    ASSERT_TRUE(filled.ok()) << filled.status().ToString();
    for (const Complex& v : Values((*filled)[0])) EXPECT_EQ(v, Values(value)[0]);
    auto zeros = test::RunOp("ZerosLike", {(*filled)[0]});
    ASSERT_TRUE(zeros.ok()) << zeros.status().ToString();
    for (const Complex& v : Values((*zeros)[0])) EXPECT_EQ(v, Complex(0));
    auto chosen = test::RunOp("Select", {Tensor::FromVector<bool>({true, false}, {2}),
                                         (*filled)[0], (*zeros)[0]});
    ASSERT_TRUE(chosen.ok()) << chosen.status().ToString();
    const std::vector<Complex> c = Values((*chosen)[0]);
    EXPECT_EQ(c[0], Values(value)[0]);
    EXPECT_EQ(c[5], Complex(0));
    auto hot = test::RunOp("OneHot", {Tensor::FromVector<int64_t>({1, 0}, {2}),
                                      Tensor::Scalar<int32_t>(2), value,
                                      Make(t, TensorShape({}), {0})});
    ASSERT_TRUE(hot.ok()) << hot.status().ToString();
    const std::vector<Complex> h = Values((*hot)[0]);
    EXPECT_EQ(h, (std::vector<Complex>{0, Values(value)[0], Values(value)[0], 0}));
  }
  for (DataType t : Join({kFloating16, kComplex, kSmallInts})) {
    auto ones = test::RunOp("OnesLike", {Make(t, TensorShape({3}), {5, 6, 0})});
    ASSERT_TRUE(ones.ok()) << ones.status().ToString();
    EXPECT_EQ(Values((*ones)[0]), (std::vector<Complex>{1, 1, 1})) << DataTypeString(t);
  }
}

TEST(DtypeBreadthTest, RangeOnSmallTypes) {
  for (DataType t : {DT_HALF, DT_BFLOAT16, DT_INT8, DT_INT16}) {
    auto out = test::RunOp("Range", {Make(t, TensorShape({}), {1}), Make(t, TensorShape({}), {7}),
                                     Make(t, TensorShape({}), {2})});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ(Values((*out)[0]), (std::vector<Complex>{1, 3, 5})) << DataTypeString(t);
  }
}

TEST(DtypeBreadthTest, RandomOpsOnSixteenBitTypes) {
  for (DataType t : kFloating16) {
    SCOPED_TRACE(DataTypeString(t));
    const Tensor shape = Tensor::FromVector<int32_t>({4096}, {1});
    const AttrMap attrs = {{"dtype", AttrValue::Type(t)}, {"seed", AttrValue::Int(3)},
                           {"seed2", AttrValue::Int(4)}};
    auto uniform = test::RunOp("RandomUniform", {shape}, attrs);
    ASSERT_TRUE(uniform.ok()) << uniform.status().ToString();
    double sum = 0;
    for (const Complex& v : Values((*uniform)[0])) {
      EXPECT_GE(v.real(), 0.0);
      EXPECT_LT(v.real(), 1.0);  // never rounded up to 1
      sum += v.real();
    }
    EXPECT_NEAR(sum / 4096, 0.5, 0.03);
    auto truncated = test::RunOp("TruncatedNormal", {shape}, attrs);
    ASSERT_TRUE(truncated.ok()) << truncated.status().ToString();
    double sq = 0;
    for (const Complex& v : Values((*truncated)[0])) {
      EXPECT_LT(std::fabs(v.real()), 2.0);
      sq += v.real() * v.real();
    }
    // The variance of a standard normal truncated at 2 sigma is about 0.774.
    EXPECT_NEAR(sq / 4096, 0.774, 0.06);
  }
}

}  // namespace
}  // namespace tact

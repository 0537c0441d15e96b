// Element-wise math beyond the core set of cwise_unary_ops.cc: Reciprocal,
// the trigonometric and hyperbolic functions, Log1p and Expm1, Erf and
// Erfc, the roundings (Floor, Ceil, Rint, Round), IsNan, IsInf and
// IsFinite, and the complex parts (Conj, Real, Imag, Complex), on every
// type their declarations allow.
//
// float and double go through Eigen's vectors where Eigen has the function
// (EigenUnaryOp); the scalar Apply is the definition the tests check
// against, and what half, bfloat16 (in float) and complex compute. Erf and
// Erfc are scalar on every type: Eigen keeps erf in its unsupported modules.
#include <cmath>

#include "kernels/cpu/cwise_ops_common.h"

namespace tact {
namespace {

using cwise::EigenUnaryOp;
using cwise::UnaryOp;

struct ReciprocalF {
  static constexpr int64_t kCost = 5;
  template <typename T>
  static T Apply(T x) { return T(1) / x; }
  template <typename A>
  static auto Vector(const A& x) { return x.inverse(); }
};

// One functor per function of <cmath> that Eigen's arrays also have.
#define TACT_MATH_FUNCTOR(NAME, FN, COST)                 \
  struct NAME {                                           \
    static constexpr int64_t kCost = COST;                \
    template <typename T>                                 \
    static T Apply(T x) { return std::FN(x); }            \
    template <typename A>                                 \
    static auto Vector(const A& x) { return x.FN(); }     \
  };
TACT_MATH_FUNCTOR(SinF, sin, 20)
TACT_MATH_FUNCTOR(CosF, cos, 20)
TACT_MATH_FUNCTOR(TanF, tan, 40)
TACT_MATH_FUNCTOR(AsinF, asin, 40)
TACT_MATH_FUNCTOR(AcosF, acos, 40)
TACT_MATH_FUNCTOR(AtanF, atan, 40)
TACT_MATH_FUNCTOR(SinhF, sinh, 40)
TACT_MATH_FUNCTOR(CoshF, cosh, 40)
TACT_MATH_FUNCTOR(FloorF, floor, 1)
TACT_MATH_FUNCTOR(CeilF, ceil, 1)
// rint rounds halves to even in the default rounding mode, which nothing
// in tact changes; Eigen's rint does the same.
TACT_MATH_FUNCTOR(RintF, rint, 1)
#undef TACT_MATH_FUNCTOR

// std has no log1p or expm1 of a complex number: there they are the plain
// formulas (TensorFlow's are too).
struct Log1pF {
  static constexpr int64_t kCost = 25;
  template <typename T>
  static T Apply(T x) {
    if constexpr (kIsComplex<T>) {
      return std::log(T(1) + x);
    } else {
      return std::log1p(x);
    }
  }
  template <typename A>
  static auto Vector(const A& x) { return x.log1p(); }
};

struct Expm1F {
  static constexpr int64_t kCost = 25;
  template <typename T>
  static T Apply(T x) {
    if constexpr (kIsComplex<T>) {
      return std::exp(x) - T(1);
    } else {
      return std::expm1(x);
    }
  }
  template <typename A>
  static auto Vector(const A& x) { return x.expm1(); }
};

struct ErfF {
  static constexpr int64_t kCost = 30;
  template <typename T>
  static T Apply(T x) { return std::erf(x); }
};

struct ErfcF {
  static constexpr int64_t kCost = 30;
  template <typename T>
  static T Apply(T x) { return std::erfc(x); }
};

// Round is Rint on floating types and keeps integers as they are.
struct RoundF {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static T Apply(T x) {
    if constexpr (std::is_integral_v<T>) {
      return x;
    } else {
      return std::rint(x);
    }
  }
};

struct IsNanF {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static bool Apply(T x) { return std::isnan(x); }
};

struct IsInfF {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static bool Apply(T x) { return std::isinf(x); }
};

struct IsFiniteF {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static bool Apply(T x) { return std::isfinite(x); }
};

struct ConjF {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static T Apply(T x) { return std::conj(x); }
};
struct RealF {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static typename T::value_type Apply(T x) { return x.real(); }
};
struct ImagF {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static typename T::value_type Apply(T x) { return x.imag(); }
};
struct ComplexF {
  static constexpr int64_t kCost = 1;
  template <typename R>
  static std::complex<R> Apply(R re, R im) { return {re, im}; }
};

#define TACT_REGISTER_UNARY(T, OP, F) \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), UnaryOp<T, T, F>);
#define TACT_REGISTER_EIGEN_UNARY(T, OP, F) \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), EigenUnaryOp<T, F>);
#define TACT_REGISTER_CLASSIFY(T, OP, F) \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), UnaryOp<T, bool, F>);
// half, bfloat16, float and double; the second adds complex64 and complex128.
#define TACT_REGISTER_REAL(OP, F)                   \
  TACT_CALL_FLOAT(TACT_REGISTER_EIGEN_UNARY, OP, F) \
  TACT_CALL_16BIT(TACT_REGISTER_UNARY, OP, F)
#define TACT_REGISTER_REAL_AND_COMPLEX(OP, F) \
  TACT_REGISTER_REAL(OP, F)                   \
  TACT_CALL_COMPLEX(TACT_REGISTER_UNARY, OP, F)

// The types of each op's declaration (graph/ops/math_ops.cc).
TACT_REGISTER_REAL_AND_COMPLEX("Reciprocal", ReciprocalF)
TACT_REGISTER_REAL_AND_COMPLEX("Sin", SinF)
TACT_REGISTER_REAL_AND_COMPLEX("Cos", CosF)
TACT_REGISTER_REAL_AND_COMPLEX("Tan", TanF)
TACT_REGISTER_REAL("Asin", AsinF)
TACT_REGISTER_REAL("Acos", AcosF)
TACT_REGISTER_REAL("Atan", AtanF)
TACT_REGISTER_REAL_AND_COMPLEX("Sinh", SinhF)
TACT_REGISTER_REAL_AND_COMPLEX("Cosh", CoshF)
TACT_REGISTER_REAL_AND_COMPLEX("Log1p", Log1pF)
TACT_REGISTER_REAL_AND_COMPLEX("Expm1", Expm1F)
TACT_CALL_FLOATING(TACT_REGISTER_UNARY, "Erf", ErfF)
TACT_CALL_FLOATING(TACT_REGISTER_UNARY, "Erfc", ErfcF)
TACT_REGISTER_REAL("Floor", FloorF)
TACT_REGISTER_REAL("Ceil", CeilF)
TACT_REGISTER_REAL("Rint", RintF)
TACT_CALL_FLOATING(TACT_REGISTER_UNARY, "Round", RoundF)
TACT_CALL_INT(TACT_REGISTER_UNARY, "Round", RoundF)
TACT_REGISTER_UNARY(int8_t, "Round", RoundF)
TACT_REGISTER_UNARY(int16_t, "Round", RoundF)
TACT_CALL_FLOATING(TACT_REGISTER_CLASSIFY, "IsNan", IsNanF)
TACT_CALL_FLOATING(TACT_REGISTER_CLASSIFY, "IsInf", IsInfF)
TACT_CALL_FLOATING(TACT_REGISTER_CLASSIFY, "IsFinite", IsFiniteF)

TACT_CALL_COMPLEX(TACT_REGISTER_UNARY, "Conj", ConjF)
#define TACT_REGISTER_PARTS(C, R)                                                        \
  REGISTER_KERNEL_BUILDER(Name("Real").Device(DEVICE_CPU).TypeConstraint<C>("T")         \
                              .TypeConstraint<R>("Tout"), UnaryOp<C, R, RealF>);          \
  REGISTER_KERNEL_BUILDER(Name("Imag").Device(DEVICE_CPU).TypeConstraint<C>("T")         \
                              .TypeConstraint<R>("Tout"), UnaryOp<C, R, ImagF>);          \
  REGISTER_KERNEL_BUILDER(Name("Complex").Device(DEVICE_CPU).TypeConstraint<R>("T")      \
                              .TypeConstraint<C>("Tout"), cwise::BinaryOp<R, C, ComplexF>);
TACT_REGISTER_PARTS(complex64, float)
TACT_REGISTER_PARTS(complex128, double)
#undef TACT_REGISTER_PARTS

#undef TACT_REGISTER_REAL_AND_COMPLEX
#undef TACT_REGISTER_REAL
#undef TACT_REGISTER_CLASSIFY
#undef TACT_REGISTER_EIGEN_UNARY
#undef TACT_REGISTER_UNARY

}  // namespace
}  // namespace tact

// Element-wise unary math and activations: Neg, Exp, Log, Sqrt, Rsqrt,
// Square, Abs, Sign, Tanh, Sigmoid, Relu, Relu6, Elu, Softplus. Integer
// Neg/Abs/Square wrap (two's complement) rather than overflow.
#include <cmath>

#include "kernels/cpu/cwise_ops_common.h"

namespace tact {
namespace {

using cwise::UnaryOp;

template <typename T>
using Unsigned = std::make_unsigned_t<T>;

struct NegF {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static T Apply(T x) {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(Unsigned<T>(0) - static_cast<Unsigned<T>>(x));
    } else {
      return -x;
    }
  }
};

struct AbsF {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static T Apply(T x) {
    if constexpr (std::is_integral_v<T>) {
      return x < 0 ? NegF::Apply(x) : x;
    } else {
      return std::fabs(x);
    }
  }
};

struct SquareF {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static T Apply(T x) {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(static_cast<Unsigned<T>>(x) * static_cast<Unsigned<T>>(x));
    } else {
      return x * x;
    }
  }
};

// -1, 0 or 1; NaN stays NaN.
struct SignF {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static T Apply(T x) {
    const T s = static_cast<T>((x > T(0)) - (x < T(0)));
    if constexpr (std::is_floating_point_v<T>) {
      return x != x ? x : s;
    } else {
      return s;
    }
  }
};

struct ExpF {
  static constexpr int64_t kCost = 20;
  template <typename T>
  static T Apply(T x) { return std::exp(x); }
};

struct LogF {
  static constexpr int64_t kCost = 20;
  template <typename T>
  static T Apply(T x) { return std::log(x); }
};

struct SqrtF {
  static constexpr int64_t kCost = 10;
  template <typename T>
  static T Apply(T x) { return std::sqrt(x); }
};

struct RsqrtF {
  static constexpr int64_t kCost = 12;
  template <typename T>
  static T Apply(T x) { return T(1) / std::sqrt(x); }
};

struct TanhF {
  static constexpr int64_t kCost = 30;
  template <typename T>
  static T Apply(T x) { return std::tanh(x); }
};

// 1 / (1 + e^-x): e^-x overflows to inf for very negative x, giving 0.
struct SigmoidF {
  static constexpr int64_t kCost = 25;
  template <typename T>
  static T Apply(T x) { return T(1) / (T(1) + std::exp(-x)); }
};

struct ReluF {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static T Apply(T x) { return x > T(0) ? x : T(0); }
};

struct Relu6F {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static T Apply(T x) { return x > T(0) ? (x < T(6) ? x : T(6)) : T(0); }
};

struct EluF {
  static constexpr int64_t kCost = 20;
  template <typename T>
  static T Apply(T x) { return x < T(0) ? std::expm1(x) : x; }
};

// log(1 + e^x) as max(x, 0) + log1p(e^-|x|): no overflow for large x and no
// loss of precision for very negative x.
struct SoftplusF {
  static constexpr int64_t kCost = 40;
  template <typename T>
  static T Apply(T x) {
    return (x > T(0) ? x : T(0)) + std::log1p(std::exp(-std::fabs(x)));
  }
};

#define TACT_REGISTER_UNARY(OP, T, F) \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), UnaryOp<T, T, F>)
#define TACT_REGISTER_UNARY_FLOAT(OP, F) \
  TACT_REGISTER_UNARY(OP, float, F);      \
  TACT_REGISTER_UNARY(OP, double, F)
#define TACT_REGISTER_UNARY_ALL(OP, F) \
  TACT_REGISTER_UNARY_FLOAT(OP, F);     \
  TACT_REGISTER_UNARY(OP, int32_t, F);  \
  TACT_REGISTER_UNARY(OP, int64_t, F)

TACT_REGISTER_UNARY_ALL("Neg", NegF);
TACT_REGISTER_UNARY_ALL("Abs", AbsF);
TACT_REGISTER_UNARY_ALL("Square", SquareF);
TACT_REGISTER_UNARY_ALL("Sign", SignF);
TACT_REGISTER_UNARY_ALL("Relu", ReluF);
TACT_REGISTER_UNARY_FLOAT("Exp", ExpF);
TACT_REGISTER_UNARY_FLOAT("Log", LogF);
TACT_REGISTER_UNARY_FLOAT("Sqrt", SqrtF);
TACT_REGISTER_UNARY_FLOAT("Rsqrt", RsqrtF);
TACT_REGISTER_UNARY_FLOAT("Tanh", TanhF);
TACT_REGISTER_UNARY_FLOAT("Sigmoid", SigmoidF);
TACT_REGISTER_UNARY_FLOAT("Relu6", Relu6F);
TACT_REGISTER_UNARY_FLOAT("Elu", EluF);
TACT_REGISTER_UNARY_FLOAT("Softplus", SoftplusF);

#undef TACT_REGISTER_UNARY_ALL
#undef TACT_REGISTER_UNARY_FLOAT
#undef TACT_REGISTER_UNARY

}  // namespace
}  // namespace tact

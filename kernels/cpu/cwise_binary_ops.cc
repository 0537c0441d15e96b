// Broadcasting arithmetic: Add, Sub, Mul, Div, RealDiv, FloorDiv, FloorMod,
// Maximum, Minimum, Pow, SquaredDifference, Atan2, on every type their declarations allow
// (half and bfloat16 computed in float, complex as std::complex). Integer
// arithmetic wraps (two's complement) instead of overflowing into undefined
// behaviour, and Div on integers truncates toward zero like C++ (and
// TensorFlow's Div), FloorDiv and FloorMod round toward minus infinity like
// Python; a zero divisor is an error, and INT_MIN / -1 wraps to INT_MIN (its
// remainder is 0), because x86 raises SIGFPE for both.
#include <cmath>

#include "kernels/cpu/cwise_ops_common.h"

namespace tact {
namespace {

using cwise::BinaryOp;

template <typename T>
using Unsigned = std::make_unsigned_t<T>;

struct AddF {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static T Apply(T a, T b) { return WrappingAdd(a, b); }
};

struct SubF {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static T Apply(T a, T b) { return WrappingSub(a, b); }
};

struct MulF {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static T Apply(T a, T b) { return WrappingMul(a, b); }
};

struct DivF {
  static constexpr int64_t kCost = 5;
  static constexpr bool kNonZeroDivisor = true;  // checked by BinaryOp for integers
  template <typename T>
  static T Apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      if (b == T(-1)) return static_cast<T>(Unsigned<T>(0) - static_cast<Unsigned<T>>(a));
      return a / b;
    } else {
      return a / b;
    }
  }
};

// floor(a / b); for integers the truncated quotient, one lower when the
// division was inexact and the operands' signs differ.
struct FloorDivF {
  static constexpr int64_t kCost = 6;
  static constexpr bool kNonZeroDivisor = true;
  template <typename T>
  static T Apply(T a, T b) {
    if constexpr (std::is_unsigned_v<T>) {
      return a / b;
    } else if constexpr (std::is_integral_v<T>) {
      const T q = DivF::Apply(a, b);
      const bool inexact = b != T(-1) && a % b != 0;
      return inexact && ((a < 0) != (b < 0)) ? static_cast<T>(q - 1) : q;
    } else {
      return std::floor(a / b);
    }
  }
};

// a - floor(a / b) * b: the truncated remainder, moved into b's sign (so a
// float result is exact, as fmod's is).
struct FloorModF {
  static constexpr int64_t kCost = 6;
  static constexpr bool kNonZeroDivisor = true;
  template <typename T>
  static T Apply(T a, T b) {
    if constexpr (std::is_unsigned_v<T>) {
      return a % b;
    } else if constexpr (std::is_integral_v<T>) {
      if (b == T(-1)) return 0;
      const T r = a % b;
      return r != 0 && ((r < 0) != (b < 0)) ? static_cast<T>(r + b) : r;
    } else {
      const T r = std::fmod(a, b);
      return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
    }
  }
};

// std::max / std::min's rule: the first operand unless the second is
// strictly greater (smaller); so a NaN in x propagates and one in y does not.
struct MaximumF {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static T Apply(T a, T b) { return a < b ? b : a; }
};

struct MinimumF {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static T Apply(T a, T b) { return b < a ? b : a; }
};

// Integers by repeated squaring (wrapping); a negative exponent is refused
// by BinaryOp.
struct PowF {
  static constexpr int64_t kCost = 40;
  static constexpr bool kNonNegativeExponent = true;
  template <typename T>
  static T Apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      T result = 1;
      for (; b > 0; b >>= 1) {
        if (b & 1) result = WrappingMul(result, a);
        a = WrappingMul(a, a);
      }
      return result;
    } else {
      return std::pow(a, b);
    }
  }
};

// (a - b) * conj(a - b), TensorFlow's definition: |a - b|^2 for complex.
struct SquaredDifferenceF {
  static constexpr int64_t kCost = 2;
  template <typename T>
  static T Apply(T a, T b) {
    const T d = WrappingSub(a, b);
    return WrappingMul(d, Conj(d));
  }
};

// atan(a / b) in the quadrant of (b, a): TensorFlow's Atan2(y, x).
struct Atan2F {
  static constexpr int64_t kCost = 40;
  template <typename T>
  static T Apply(T a, T b) { return std::atan2(a, b); }
};

#define TACT_REGISTER_BINARY(T, OP, F) \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), BinaryOp<T, T, F>);

// The types of each op's declaration (graph/ops/math_ops.cc).
TACT_CALL_NUMBER(TACT_REGISTER_BINARY, "Add", AddF)
TACT_CALL_NUMBER(TACT_REGISTER_BINARY, "Sub", SubF)
TACT_CALL_NUMBER(TACT_REGISTER_BINARY, "Mul", MulF)
TACT_CALL_NUMBER(TACT_REGISTER_BINARY, "Div", DivF)
// RealDiv is Div on the types where the two are one (Python's / emits it).
TACT_CALL_FLOATING(TACT_REGISTER_BINARY, "RealDiv", DivF)
TACT_CALL_COMPLEX(TACT_REGISTER_BINARY, "RealDiv", DivF)
TACT_CALL_REAL(TACT_REGISTER_BINARY, "FloorDiv", FloorDivF)
TACT_CALL_REAL(TACT_REGISTER_BINARY, "FloorMod", FloorModF)
TACT_CALL_REAL(TACT_REGISTER_BINARY, "Maximum", MaximumF)
TACT_CALL_REAL(TACT_REGISTER_BINARY, "Minimum", MinimumF)
TACT_CALL_FLOATING(TACT_REGISTER_BINARY, "Pow", PowF)
TACT_CALL_INT(TACT_REGISTER_BINARY, "Pow", PowF)
TACT_CALL_COMPLEX(TACT_REGISTER_BINARY, "Pow", PowF)
TACT_CALL_FLOATING(TACT_REGISTER_BINARY, "SquaredDifference", SquaredDifferenceF)
TACT_CALL_INT(TACT_REGISTER_BINARY, "SquaredDifference", SquaredDifferenceF)
TACT_CALL_COMPLEX(TACT_REGISTER_BINARY, "SquaredDifference", SquaredDifferenceF)
TACT_CALL_FLOATING(TACT_REGISTER_BINARY, "Atan2", Atan2F)

#undef TACT_REGISTER_BINARY

}  // namespace
}  // namespace tact

// Broadcasting arithmetic: Add, Sub, Mul, Div, Maximum, Minimum, Pow,
// SquaredDifference. Integer arithmetic wraps (two's complement) instead of
// overflowing into undefined behaviour, and Div on integers truncates toward
// zero like C++ (and TensorFlow's Div); a zero divisor is an error, and
// INT_MIN / -1 wraps to INT_MIN, because x86 raises SIGFPE for both.
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
  static T Apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(static_cast<Unsigned<T>>(a) + static_cast<Unsigned<T>>(b));
    } else {
      return a + b;
    }
  }
};

struct SubF {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static T Apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(static_cast<Unsigned<T>>(a) - static_cast<Unsigned<T>>(b));
    } else {
      return a - b;
    }
  }
};

struct MulF {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static T Apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(static_cast<Unsigned<T>>(a) * static_cast<Unsigned<T>>(b));
    } else {
      return a * b;
    }
  }
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

struct PowF {
  static constexpr int64_t kCost = 40;
  template <typename T>
  static T Apply(T a, T b) { return std::pow(a, b); }
};

struct SquaredDifferenceF {
  static constexpr int64_t kCost = 2;
  template <typename T>
  static T Apply(T a, T b) { return (a - b) * (a - b); }
};

#define TACT_REGISTER_BINARY(OP, T, F) \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), BinaryOp<T, T, F>)
#define TACT_REGISTER_BINARY_ALL(OP, F) \
  TACT_REGISTER_BINARY(OP, float, F);    \
  TACT_REGISTER_BINARY(OP, double, F);   \
  TACT_REGISTER_BINARY(OP, int32_t, F);  \
  TACT_REGISTER_BINARY(OP, int64_t, F)

TACT_REGISTER_BINARY_ALL("Add", AddF);
TACT_REGISTER_BINARY_ALL("Sub", SubF);
TACT_REGISTER_BINARY_ALL("Mul", MulF);
TACT_REGISTER_BINARY_ALL("Div", DivF);
TACT_REGISTER_BINARY_ALL("Maximum", MaximumF);
TACT_REGISTER_BINARY_ALL("Minimum", MinimumF);
TACT_REGISTER_BINARY("Pow", float, PowF);
TACT_REGISTER_BINARY("Pow", double, PowF);
TACT_REGISTER_BINARY("SquaredDifference", float, SquaredDifferenceF);
TACT_REGISTER_BINARY("SquaredDifference", double, SquaredDifferenceF);

#undef TACT_REGISTER_BINARY_ALL
#undef TACT_REGISTER_BINARY

}  // namespace
}  // namespace tact

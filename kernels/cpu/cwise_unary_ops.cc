// Element-wise unary math and activations: Neg, Exp, Log, Sqrt, Rsqrt,
// Square, Abs, Sign, Tanh, Sigmoid, Relu, Relu6, Elu, Softplus, Softsign,
// Selu and LeakyRelu, on every
// type their declarations allow. Integer Neg/Abs/Square wrap (two's
// complement) rather than overflow.
//
// The transcendental ones on float/double go through Eigen's SIMD versions
// (EigenUnaryOp), several times faster than std::exp one element at a time;
// the scalar Apply of each functor is the definition the tests check against,
// and what half, bfloat16 (in float) and complex compute.
#include <algorithm>
#include <cmath>

#include "kernels/cpu/cwise_ops_common.h"

namespace tact {
namespace {

using cwise::EigenUnaryOp;
using cwise::UnaryOp;

struct NegF {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static T Apply(T x) {
    if constexpr (std::is_integral_v<T>) {
      return WrappingSub(T(0), x);
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
  static T Apply(T x) { return WrappingMul(x, x); }
};

// -1, 0 or 1; NaN stays NaN. For complex, x / |x| (0 for 0), as TensorFlow.
struct SignF {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static T Apply(T x) {
    if constexpr (kIsComplex<T>) {
      return x == T(0) ? T(0) : x / std::abs(x);
    } else if constexpr (std::is_floating_point_v<T>) {
      return x != x ? x : static_cast<T>((x > T(0)) - (x < T(0)));
    } else {
      return static_cast<T>((x > T(0)) - (x < T(0)));
    }
  }
};

struct ExpF {
  static constexpr int64_t kCost = 20;
  template <typename T>
  static T Apply(T x) { return std::exp(x); }
  template <typename A>
  static auto Vector(const A& x) { return x.exp(); }
};

struct LogF {
  static constexpr int64_t kCost = 20;
  template <typename T>
  static T Apply(T x) { return std::log(x); }
  template <typename A>
  static auto Vector(const A& x) { return x.log(); }
};

struct SqrtF {
  static constexpr int64_t kCost = 10;
  template <typename T>
  static T Apply(T x) { return std::sqrt(x); }
  template <typename A>
  static auto Vector(const A& x) { return x.sqrt(); }
};

struct RsqrtF {
  static constexpr int64_t kCost = 12;
  template <typename T>
  static T Apply(T x) { return T(1) / std::sqrt(x); }
  template <typename A>
  static auto Vector(const A& x) { return x.sqrt().inverse(); }
};

struct TanhF {
  static constexpr int64_t kCost = 30;
  template <typename T>
  static T Apply(T x) { return std::tanh(x); }
  template <typename A>
  static auto Vector(const A& x) { return x.tanh(); }
};

// 1 / (1 + e^-x): e^-x overflows to inf for very negative x, giving 0.
struct SigmoidF {
  static constexpr int64_t kCost = 25;
  template <typename T>
  static T Apply(T x) { return T(1) / (T(1) + std::exp(-x)); }
  template <typename A>
  static auto Vector(const A& x) { return ((-x).exp() + 1).inverse(); }
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

// e^x - 1 rather than expm1, as TensorFlow: Eigen's expm1 costs several of its exps.
struct EluF {
  static constexpr int64_t kCost = 20;
  template <typename T>
  static T Apply(T x) { return x < T(0) ? std::exp(x) - T(1) : x; }
  // The same values without a select (Eigen does not vectorise select):
  // for x >= 0 the second term is exp(0) - 1 = 0 exactly.
  template <typename A>
  static auto Vector(const A& x) {
    using T = typename A::Scalar;
    return x.max(T(0)) + (x.min(T(0)).exp() - T(1));
  }
};

// log(1 + e^x) as max(x, 0) + log1p(e^-|x|): no overflow for large x and no
// loss of precision for very negative x.
struct SoftplusF {
  static constexpr int64_t kCost = 40;
  template <typename T>
  static T Apply(T x) {
    return (x > T(0) ? x : T(0)) + std::log1p(std::exp(-std::fabs(x)));
  }
  template <typename A>
  static auto Vector(const A& x) {
    using T = typename A::Scalar;
    return x.max(T(0)) + (-x.abs()).exp().log1p();
  }
};

struct SoftsignF {
  static constexpr int64_t kCost = 5;
  template <typename T>
  static T Apply(T x) { return x / (T(1) + std::fabs(x)); }
  template <typename A>
  static auto Vector(const A& x) { return x / (x.abs() + 1); }
};

// Klambauer et al.'s constants, to the digits TensorFlow writes them.
constexpr double kSeluScale = 1.0507009873554804934193349852946;
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;

// As Elu, without a select: for x >= 0 the second term is exactly 0.
struct SeluF {
  static constexpr int64_t kCost = 22;
  template <typename T>
  static T Apply(T x) {
    return x < T(0) ? T(kSeluScale * kSeluAlpha) * (std::exp(x) - T(1)) : T(kSeluScale) * x;
  }
  template <typename A>
  static auto Vector(const A& x) {
    using T = typename A::Scalar;
    return T(kSeluScale) * x.max(T(0)) + T(kSeluScale * kSeluAlpha) * (x.min(T(0)).exp() - T(1));
  }
};

// x > 0 ? x : alpha * x, alpha an attr (so not a static functor); half and
// bfloat16 compute in float.
template <typename T>
class LeakyReluOp : public OpKernel {
 public:
  explicit LeakyReluOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("alpha", &alpha_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    using C = ComputeType<T>;
    const T* px = x.data<T>();
    T* po = out->data<T>();
    const C alpha = static_cast<C>(alpha_);
    cwise::Shard(ctx, x.NumElements(), 2, [px, po, alpha](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const C v = static_cast<C>(px[i]);
        po[i] = static_cast<T>(v > C(0) ? v : alpha * v);
      }
    });
  }

 private:
  float alpha_ = 0.2f;
};

#define TACT_REGISTER_UNARY(T, OP, F) \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), UnaryOp<T, T, F>);
#define TACT_REGISTER_EIGEN_UNARY(T, OP, F) \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), EigenUnaryOp<T, F>);
// Neg, Square and Sign on their declared types: floating, complex, signed integers.
#define TACT_REGISTER_SIGNED_UNARY(OP, F)                 \
  TACT_CALL_FLOATING(TACT_REGISTER_UNARY, OP, F)          \
  TACT_CALL_INT(TACT_REGISTER_UNARY, OP, F)               \
  TACT_CALL_COMPLEX(TACT_REGISTER_UNARY, OP, F)           \
  TACT_REGISTER_UNARY(int8_t, OP, F) TACT_REGISTER_UNARY(int16_t, OP, F)
// Float and double through Eigen's vectors, the rest one element at a time.
#define TACT_REGISTER_TRANSCENDENTAL(OP, F)       \
  TACT_CALL_FLOAT(TACT_REGISTER_EIGEN_UNARY, OP, F) \
  TACT_CALL_16BIT(TACT_REGISTER_UNARY, OP, F)       \
  TACT_CALL_COMPLEX(TACT_REGISTER_UNARY, OP, F)

TACT_REGISTER_SIGNED_UNARY("Neg", NegF)
TACT_REGISTER_SIGNED_UNARY("Square", SquareF)
TACT_REGISTER_SIGNED_UNARY("Sign", SignF)
TACT_CALL_FLOATING(TACT_REGISTER_UNARY, "Abs", AbsF)
TACT_CALL_INT(TACT_REGISTER_UNARY, "Abs", AbsF)
TACT_REGISTER_UNARY(int8_t, "Abs", AbsF)
TACT_REGISTER_UNARY(int16_t, "Abs", AbsF)
TACT_CALL_REAL(TACT_REGISTER_UNARY, "Relu", ReluF)
TACT_CALL_REAL(TACT_REGISTER_UNARY, "Relu6", Relu6F)
TACT_REGISTER_TRANSCENDENTAL("Exp", ExpF)
TACT_REGISTER_TRANSCENDENTAL("Log", LogF)
TACT_REGISTER_TRANSCENDENTAL("Sqrt", SqrtF)
TACT_REGISTER_TRANSCENDENTAL("Rsqrt", RsqrtF)
TACT_REGISTER_TRANSCENDENTAL("Tanh", TanhF)
TACT_REGISTER_TRANSCENDENTAL("Sigmoid", SigmoidF)
TACT_CALL_FLOAT(TACT_REGISTER_EIGEN_UNARY, "Elu", EluF)
TACT_CALL_16BIT(TACT_REGISTER_UNARY, "Elu", EluF)
TACT_CALL_FLOAT(TACT_REGISTER_EIGEN_UNARY, "Softplus", SoftplusF)
TACT_CALL_16BIT(TACT_REGISTER_UNARY, "Softplus", SoftplusF)
TACT_CALL_FLOAT(TACT_REGISTER_EIGEN_UNARY, "Softsign", SoftsignF)
TACT_CALL_16BIT(TACT_REGISTER_UNARY, "Softsign", SoftsignF)
TACT_CALL_FLOAT(TACT_REGISTER_EIGEN_UNARY, "Selu", SeluF)
TACT_CALL_16BIT(TACT_REGISTER_UNARY, "Selu", SeluF)
#define TACT_REGISTER_LEAKY_RELU(T, OP) \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), LeakyReluOp<T>);
TACT_CALL_FLOATING(TACT_REGISTER_LEAKY_RELU, "LeakyRelu")
#undef TACT_REGISTER_LEAKY_RELU

#undef TACT_REGISTER_TRANSCENDENTAL
#undef TACT_REGISTER_SIGNED_UNARY
#undef TACT_REGISTER_EIGEN_UNARY
#undef TACT_REGISTER_UNARY

}  // namespace
}  // namespace tact

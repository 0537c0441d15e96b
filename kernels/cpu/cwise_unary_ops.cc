// Element-wise unary math and activations: Neg, Exp, Log, Sqrt, Rsqrt,
// Square, Abs, Sign, Tanh, Sigmoid, Relu, Relu6, Elu, Softplus. Integer
// Neg/Abs/Square wrap (two's complement) rather than overflow.
//
// The transcendental ones on float/double go through Eigen's SIMD versions
// (EigenUnaryOp), several times faster than std::exp one element at a time;
// the scalar Apply of each functor is the definition the tests check against.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>

#include "kernels/cpu/cwise_ops_common.h"

namespace tact {
namespace {

using cwise::UnaryOp;

// Eigen computes a span in whole packets and its last elements (past the
// last whole packet, or before the first aligned one) one at a time, which
// rounds differently. So that no result depends on how the work is split,
// spans start at multiples of kChunk elements of the 64-byte-aligned output
// and end there too, but for the last: only the tensor's own tail is scalar.
template <typename T, typename F>
class EigenUnaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const T* px = x.data<T>();
    T* po = out->data<T>();
    const int64_t n = x.NumElements();
    constexpr int64_t kChunk = 16;
    static_assert(kChunk * sizeof(T) % 64 == 0, "chunks must keep the output's alignment");
    cwise::Shard(ctx, (n + kChunk - 1) / kChunk, F::kCost * kChunk,
                 [px, po, n](int64_t b, int64_t e) {
                   using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
                   const int64_t begin = b * kChunk, end = std::min(n, e * kChunk);
                   Eigen::Map<const Array> in(px + begin, end - begin);
                   Eigen::Map<Array> o(po + begin, end - begin);
                   o = F::Vector(in);
                 });
  }
};

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

#define TACT_REGISTER_UNARY(OP, T, F) \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), UnaryOp<T, T, F>)
#define TACT_REGISTER_UNARY_FLOAT(OP, F) \
  TACT_REGISTER_UNARY(OP, float, F);      \
  TACT_REGISTER_UNARY(OP, double, F)
#define TACT_REGISTER_EIGEN_UNARY(OP, F)                                                 \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<float>("T"),          \
                          EigenUnaryOp<float, F>);                                         \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<double>("T"),         \
                          EigenUnaryOp<double, F>)
#define TACT_REGISTER_UNARY_ALL(OP, F) \
  TACT_REGISTER_UNARY_FLOAT(OP, F);     \
  TACT_REGISTER_UNARY(OP, int32_t, F);  \
  TACT_REGISTER_UNARY(OP, int64_t, F)

TACT_REGISTER_UNARY_ALL("Neg", NegF);
TACT_REGISTER_UNARY_ALL("Abs", AbsF);
TACT_REGISTER_UNARY_ALL("Square", SquareF);
TACT_REGISTER_UNARY_ALL("Sign", SignF);
TACT_REGISTER_UNARY_ALL("Relu", ReluF);
TACT_REGISTER_EIGEN_UNARY("Exp", ExpF);
TACT_REGISTER_EIGEN_UNARY("Log", LogF);
TACT_REGISTER_EIGEN_UNARY("Sqrt", SqrtF);
TACT_REGISTER_EIGEN_UNARY("Rsqrt", RsqrtF);
TACT_REGISTER_EIGEN_UNARY("Tanh", TanhF);
TACT_REGISTER_EIGEN_UNARY("Sigmoid", SigmoidF);
TACT_REGISTER_UNARY_FLOAT("Relu6", Relu6F);
TACT_REGISTER_EIGEN_UNARY("Elu", EluF);
TACT_REGISTER_EIGEN_UNARY("Softplus", SoftplusF);

#undef TACT_REGISTER_UNARY_ALL
#undef TACT_REGISTER_EIGEN_UNARY
#undef TACT_REGISTER_UNARY_FLOAT
#undef TACT_REGISTER_UNARY

}  // namespace
}  // namespace tact

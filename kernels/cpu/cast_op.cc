// Cast: converts between every numeric dtype and bool (SrcT -> DstT).
//
// Conversions C++ leaves undefined are defined here, because a NaN or a huge
// value in a feed must not crash or silently differ between builds:
//  - float -> integer truncates toward zero and saturates at the integer's
//    limits; NaN becomes 0 (TensorFlow leaves this to the hardware).
//  - integer -> narrower integer wraps (two's complement, as C++20 defines).
//  - complex -> real keeps the real part; real -> complex has imaginary 0.
//  - anything -> bool is `x != 0`; bool -> anything is 0 or 1.
//  - half and bfloat16 convert through float.
#include <cmath>
#include <functional>
#include <limits>
#include <type_traits>

#include "kernels/cpu/kernel_util.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

template <typename T> struct IsComplex : std::false_type {};
template <typename T> struct IsComplex<std::complex<T>> : std::true_type {};
template <typename T>
constexpr bool kIsHalfLike = std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;

// float/double -> integer, defined for every input.
template <typename I>
I SaturateToInt(double v) {
  using L = std::numeric_limits<I>;
  if (std::isnan(v)) return I(0);
  // 2^digits: the first value past max(), exactly representable.
  const double upper = static_cast<double>(L::max() / 2 + 1) * 2.0;
  if (v >= upper) return L::max();
  if (v <= static_cast<double>(L::min())) return L::min();
  return static_cast<I>(v);  // in (min - 1, upper): truncation is defined
}

// Reduces any source value to one of: bool, an integer, double or a complex.
template <typename S>
auto Widen(S x) {
  if constexpr (kIsHalfLike<S>) {
    return static_cast<double>(static_cast<float>(x));
  } else if constexpr (std::is_same_v<S, float>) {
    return static_cast<double>(x);
  } else {
    return x;
  }
}

template <typename D, typename S>
D Convert(S src) {
  const auto x = Widen(src);
  using W = std::remove_cv_t<decltype(x)>;
  if constexpr (std::is_same_v<D, bool>) {
    return x != W(0);
  } else if constexpr (IsComplex<W>::value && !IsComplex<D>::value) {
    return Convert<D>(x.real());
  } else if constexpr (IsComplex<D>::value) {
    using E = typename D::value_type;
    if constexpr (IsComplex<W>::value) {
      return D(static_cast<E>(x.real()), static_cast<E>(x.imag()));
    } else {
      return D(Convert<E>(x), E(0));
    }
  } else if constexpr (kIsHalfLike<D>) {
    return D(static_cast<float>(x));
  } else if constexpr (std::is_integral_v<D> && std::is_floating_point_v<W>) {
    return SaturateToInt<D>(x);
  } else {
    return static_cast<D>(x);
  }
}

template <typename S, typename D>
void CastRange(const S* in, D* out, int64_t b, int64_t e) {
  for (int64_t i = b; i < e; ++i) out[i] = Convert<D>(in[i]);
}

class CastOp : public OpKernel {
 public:
  explicit CastOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("SrcT", &src_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("DstT", &dst_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    if (src_ == dst_) {  // nothing to convert: share the buffer
      ctx->set_output(0, x);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const int64_t n = x.NumElements();
    bool ok = true;
    // Every (src, dst) pair is one small loop; nested visits instantiate them.
    VisitDataType(src_, [&]<typename S>() {
      VisitDataType(dst_, [&]<typename D>() {
        if constexpr (std::is_same_v<S, std::string> || std::is_same_v<D, std::string>) {
          ok = false;
        } else {
          const S* in = x.data<S>();
          D* o = out->data<D>();
          auto body = [in, o](int64_t b, int64_t e) { CastRange(in, o, b, e); };
          ParallelFor(ctx, n, 4, std::cref(body));
        }
      });
    });
    OP_REQUIRES(ctx, ok,
                errors::Unimplemented("Cast from ", DataTypeString(src_), " to ",
                                      DataTypeString(dst_), " is not supported"));
  }

 private:
  DataType src_ = DT_INVALID, dst_ = DT_INVALID;
};

const std::vector<DataType> kCastTypes = {
    DT_FLOAT, DT_DOUBLE, DT_HALF,   DT_BFLOAT16, DT_INT8,   DT_INT16,     DT_INT32,     DT_INT64,
    DT_UINT8, DT_UINT16, DT_UINT32, DT_UINT64,   DT_BOOL, DT_COMPLEX64, DT_COMPLEX128};

REGISTER_KERNEL_BUILDER(Name("Cast").Device(DEVICE_CPU).TypeConstraint("SrcT", kCastTypes)
                            .TypeConstraint("DstT", kCastTypes),
                        CastOp);

}  // namespace
}  // namespace tact

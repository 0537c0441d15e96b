// The machinery that every element-wise CPU kernel shares: a unary kernel
// (and one through Eigen's vectors), a NumPy-broadcasting binary kernel and
// a same-shape binary kernel, each templated on a functor
//
//   struct AddF {
//     static constexpr int64_t kCost = 1;         // cycles per element
//     template <typename T> static T Apply(T a, T b) { return a + b; }
//   };
//   REGISTER_KERNEL_BUILDER(Name("Add")..., BinaryOp<float, float, AddF>);
//
// Fast paths, in the order tried: equal shapes and scalar-vs-tensor run a
// flat loop the compiler vectorises; anything else walks the folded
// broadcast (BCast) with strides. Work over ~100k cycles is split across the
// device's threads (ParallelFor); each element is computed the same way
// whatever the split, so results do not depend on the thread count.
//
// half and bfloat16 compute in float (numeric_types.h): Call converts the
// operands for the functor and rounds its result back.
//
// Only kernels/cpu/cwise_*.cc include this (it pulls in kernel headers).
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <vector>

#include "kernels/cpu/broadcast.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/numeric_types.h"
#include "kernels/kernel_registry.h"

namespace tact::cwise {

template <typename Out, typename F, typename T>
inline Out Call(const T& x) {
  if constexpr (kIs16BitFloat<T>) {
    return static_cast<Out>(F::Apply(static_cast<float>(x)));
  } else {
    return F::Apply(x);
  }
}
template <typename Out, typename F, typename T>
inline Out Call(const T& x, const T& y) {
  if constexpr (kIs16BitFloat<T>) {
    return static_cast<Out>(F::Apply(static_cast<float>(x), static_cast<float>(y)));
  } else {
    return F::Apply(x, y);
  }
}

// A functor may declare `static constexpr bool kNonZeroDivisor = true`: its
// second operand must then be non-zero for integer types (division by zero
// would raise SIGFPE). One that declares `kNonNegativeExponent` refuses a
// negative second operand for integer types (Pow: an integer to a negative
// power is not an integer).
template <typename F, typename = void>
struct NeedsNonZeroDivisor : std::false_type {};
template <typename F>
struct NeedsNonZeroDivisor<F, std::void_t<decltype(F::kNonZeroDivisor)>>
    : std::bool_constant<F::kNonZeroDivisor> {};
template <typename F, typename = void>
struct NeedsNonNegativeExponent : std::false_type {};
template <typename F>
struct NeedsNonNegativeExponent<F, std::void_t<decltype(F::kNonNegativeExponent)>>
    : std::bool_constant<F::kNonNegativeExponent> {};

// ParallelFor through a reference: std::function keeps a reference_wrapper
// in place, whereas a lambda of more than two pointers would be copied to
// the heap on every call, a cost tiny inputs should not pay. Work that
// ParallelFor would run inline runs here, without the std::function call.
template <typename Fn>
void Shard(OpKernelContext* ctx, int64_t n, int64_t cost_per_unit, const Fn& fn) {
  if (n * cost_per_unit < kParallelForMinCost) {
    if (n > 0) fn(0, n);
    return;
  }
  ParallelFor(ctx, n, cost_per_unit, std::cref(fn));
}

template <typename T, typename Out, typename F>
class UnaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const T* px = x.data<T>();
    Out* po = out->data<Out>();
    Shard(ctx, x.NumElements(), F::kCost, [px, po](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) po[i] = Call<Out, F>(px[i]);
    });
  }
};

// A unary kernel for float and double through Eigen's vectors: F::Vector(x)
// maps an Eigen array expression (x.exp(), ...).
//
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
    Shard(ctx, (n + kChunk - 1) / kChunk, F::kCost * kChunk, [px, po, n](int64_t b, int64_t e) {
      using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
      const int64_t begin = b * kChunk, end = std::min(n, e * kChunk);
      Eigen::Map<const Array> in(px + begin, end - begin);
      Eigen::Map<Array> o(po + begin, end - begin);
      o = F::Vector(in);
    });
  }
};

// Output elements [begin, end) of a broadcast, walking the folded result
// dimensions with per-input strides (0 where that input is broadcast).
template <typename T, typename Out, typename F>
void BroadcastRange(const T* x, const T* y, Out* o, const BCast& bc, int64_t begin,
                    int64_t end) {
  const std::vector<int64_t>& dims = bc.result_shape();
  const std::vector<int64_t>& xs = bc.x_strides();
  const std::vector<int64_t>& ys = bc.y_strides();
  const int r = static_cast<int>(dims.size());
  // Folded ranks are small: keep the index on the stack unless it is not.
  int64_t idx_small[8];
  std::vector<int64_t> idx_big(r > 8 ? r : 0);
  int64_t* idx = r > 8 ? idx_big.data() : idx_small;
  int64_t xo = 0, yo = 0, rem = begin;
  for (int d = r - 1; d >= 0; --d) {
    idx[d] = rem % dims[d];
    rem /= dims[d];
    xo += idx[d] * xs[d];
    yo += idx[d] * ys[d];
  }
  const int64_t inner = dims[r - 1], sx = xs[r - 1], sy = ys[r - 1];
  for (int64_t i = begin; i < end;) {
    const int64_t run = std::min(inner - idx[r - 1], end - i);
    // Folding leaves inner strides of 0 or 1: three plain loops vectorise.
    if (sx != 0 && sy != 0) {
      for (int64_t k = 0; k < run; ++k) o[i + k] = Call<Out, F>(x[xo + k], y[yo + k]);
    } else if (sx != 0) {
      const T yv = y[yo];
      for (int64_t k = 0; k < run; ++k) o[i + k] = Call<Out, F>(x[xo + k], yv);
    } else {
      const T xv = x[xo];
      for (int64_t k = 0; k < run; ++k) o[i + k] = Call<Out, F>(xv, y[yo + k * sy]);
    }
    i += run;
    xo += run * sx;
    yo += run * sy;
    idx[r - 1] += run;
    if (idx[r - 1] < inner) continue;
    xo -= inner * sx;
    yo -= inner * sy;
    idx[r - 1] = 0;
    for (int d = r - 2; d >= 0; --d) {  // carry into the outer dimensions
      xo += xs[d];
      yo += ys[d];
      if (++idx[d] < dims[d]) break;
      xo -= dims[d] * xs[d];
      yo -= dims[d] * ys[d];
      idx[d] = 0;
    }
  }
}

template <typename T, typename Out, typename F>
class BinaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    if constexpr (std::is_integral_v<T> && NeedsNonZeroDivisor<F>::value) {
      const T* py = y.data<T>();
      const bool zero = std::any_of(py, py + y.NumElements(), [](T v) { return v == T(0); });
      OP_REQUIRES(ctx, !zero, errors::InvalidArgument("integer division by zero"));
    }
    if constexpr (std::is_integral_v<T> && NeedsNonNegativeExponent<F>::value) {
      const T* py = y.data<T>();
      const bool negative = std::any_of(py, py + y.NumElements(), [](T v) { return v < T(0); });
      OP_REQUIRES(ctx, !negative,
                  errors::InvalidArgument("integers to negative integer powers are not allowed"));
    }
    // Rank-0 and equal shapes need no BCast (no allocation but the output).
    if (x.shape() == y.shape()) return Flat(ctx, x, y, x.shape(), 0);
    if (x.dims() == 0) return Flat(ctx, x, y, y.shape(), 1);
    if (y.dims() == 0) return Flat(ctx, x, y, x.shape(), 2);
    const BCast bc(x.shape().dim_sizes(), y.shape().dim_sizes());
    OP_REQUIRES(ctx, bc.IsValid(),
                errors::InvalidArgument("incompatible shapes for broadcasting: ",
                                        x.shape().DebugString(), " and ",
                                        y.shape().DebugString()));
    const TensorShape out_shape(bc.output_shape());
    if (x.NumElements() == 1) return Flat(ctx, x, y, out_shape, 1);
    if (y.NumElements() == 1) return Flat(ctx, x, y, out_shape, 2);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const T* px = x.data<T>();
    const T* py = y.data<T>();
    Out* po = out->data<Out>();
    Shard(ctx, out->NumElements(), F::kCost + 1, [&](int64_t b, int64_t e) {
      BroadcastRange<T, Out, F>(px, py, po, bc, b, e);
    });
  }

 private:
  // mode 0: same shape; 1: x is one element; 2: y is one element.
  void Flat(OpKernelContext* ctx, const Tensor& x, const Tensor& y, const TensorShape& shape,
            int mode) {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const T* px = x.data<T>();
    const T* py = y.data<T>();
    Out* po = out->data<Out>();
    Shard(ctx, out->NumElements(), F::kCost, [px, py, po, mode](int64_t b, int64_t e) {
      if (mode == 0) {
        for (int64_t i = b; i < e; ++i) po[i] = Call<Out, F>(px[i], py[i]);
      } else if (mode == 1) {
        const T xv = px[0];
        for (int64_t i = b; i < e; ++i) po[i] = Call<Out, F>(xv, py[i]);
      } else {
        const T yv = py[0];
        for (int64_t i = b; i < e; ++i) po[i] = Call<Out, F>(px[i], yv);
      }
    });
  }
};

// Two inputs of one shape (the activation gradients: ReluGrad, TanhGrad, ...).
template <typename T, typename F>
class SameShapeBinaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(ctx, a.shape() == b.shape(),
                errors::InvalidArgument("inputs must have the same shape, got ",
                                        a.shape().DebugString(), " and ",
                                        b.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, a.shape(), &out));
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    T* po = out->data<T>();
    Shard(ctx, a.NumElements(), F::kCost, [pa, pb, po](int64_t s, int64_t e) {
      for (int64_t i = s; i < e; ++i) po[i] = Call<T, F>(pa[i], pb[i]);
    });
  }
};

}  // namespace tact::cwise

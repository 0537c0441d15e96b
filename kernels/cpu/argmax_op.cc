// ArgMax and ArgMin along one dimension: the first index of the largest
// (smallest) value, so ties resolve the same way on every run. A NaN counts
// as beyond every number (the first NaN wins), matching Max and Min, which
// propagate NaN.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/numeric_types.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

constexpr int64_t kColumnBlock = 512;

// True if `v` should replace the current best `best`. Strict, so the first
// of equal values is kept.
template <typename T, bool kMax>
bool Better(T v, T best) {
  if constexpr (kIs16BitFloat<T>) {
    return Better<float, kMax>(static_cast<float>(v), static_cast<float>(best));
  } else {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(best)) return false;
      if (std::isnan(v)) return true;
    }
    return kMax ? v > best : v < best;
  }
}

template <typename T, typename Out, bool kMax>
class ArgOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& dim = ctx->input(1);
    OP_REQUIRES(ctx, dim.dims() == 0,
                errors::InvalidArgument("dimension must be a scalar, got shape ",
                                        dim.shape().DebugString()));
    StatusOr<std::vector<int64_t>> axis_value = ReadIntVector(dim, "dimension");
    OP_REQUIRES_OK(ctx, axis_value.status());
    StatusOr<int> axis = NormalizeAxis((*axis_value)[0], in.dims(), "dimension");
    OP_REQUIRES_OK(ctx, axis.status());
    const int64_t K = in.dim_size(*axis);
    OP_REQUIRES(ctx, K > 0,
                errors::InvalidArgument("dimension ", *axis, " is empty in input of shape ",
                                        in.shape().DebugString()));
    OP_REQUIRES(ctx, K - 1 <= static_cast<int64_t>(std::numeric_limits<Out>::max()),
                errors::InvalidArgument("dimension ", *axis, " of input of shape ",
                                        in.shape().DebugString(), " is too long for output_type ",
                                        DataTypeString(DataTypeToEnum<Out>::value)));
    TensorShape out_shape = in.shape();
    out_shape.RemoveDim(*axis);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    int64_t A = 1, N = 1;
    for (int d = 0; d < *axis; ++d) A *= in.dim_size(d);
    for (int d = *axis + 1; d < in.dims(); ++d) N *= in.dim_size(d);
    if (out->NumElements() == 0) return;
    const T* x = in.data<T>();
    Out* o = out->data<Out>();
    if (N == 1) {
      ParallelFor(ctx, A, K, [&](int64_t b, int64_t e) {
        for (int64_t a = b; a < e; ++a) o[a] = ArgOfRow(x + a * K, K);
      });
    } else {
      // Row by row over each [K, N] slab, so memory is read in order; work
      // units are (slab, block of columns), so one wide slab still splits.
      const int64_t blocks = (N + kColumnBlock - 1) / kColumnBlock;
      ParallelFor(ctx, A * blocks, K * kColumnBlock, [&](int64_t b, int64_t e) {
        std::vector<T> best(kColumnBlock);
        for (int64_t u = b; u < e; ++u) {
          const int64_t a = u / blocks, j0 = (u % blocks) * kColumnBlock;
          const int64_t cols = std::min(N - j0, kColumnBlock);
          const T* slab = x + a * K * N + j0;
          Out* idx = o + a * N + j0;
          std::copy(slab, slab + cols, best.begin());
          std::fill(idx, idx + cols, Out(0));
          for (int64_t k = 1; k < K; ++k) {
            const T* row = slab + k * N;
            for (int64_t j = 0; j < cols; ++j) {
              if (Better<T, kMax>(row[j], best[j])) {
                best[j] = row[j];
                idx[j] = static_cast<Out>(k);
              }
            }
          }
        }
      });
    }
  }

 private:
  static Out ArgOfRow(const T* p, int64_t n) {
    int64_t best = 0;
    for (int64_t k = 1; k < n; ++k) {
      if (Better<T, kMax>(p[k], p[best])) best = k;
    }
    return static_cast<Out>(best);
  }
};

#define TACT_REGISTER_ARG_OPS(T, OUT)                                                   \
  REGISTER_KERNEL_BUILDER(Name("ArgMax").Device(DEVICE_CPU).TypeConstraint<T>("T")      \
                              .TypeConstraint<OUT>("output_type"),                      \
                          ArgOp<T, OUT, true>);                                         \
  REGISTER_KERNEL_BUILDER(Name("ArgMin").Device(DEVICE_CPU).TypeConstraint<T>("T")      \
                              .TypeConstraint<OUT>("output_type"),                      \
                          ArgOp<T, OUT, false>);
TACT_CALL_REAL(TACT_REGISTER_ARG_OPS, int32_t)
TACT_CALL_REAL(TACT_REGISTER_ARG_OPS, int64_t)
#undef TACT_REGISTER_ARG_OPS

}  // namespace
}  // namespace tact

// MaxPool and AvgPool over NHWC windows. Each output pixel's channels are
// updated together, so the inner loop runs over contiguous memory.
#include <limits>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/pooling_util.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

enum class PoolKind { kMax, kAvg };

template <typename T, PoolKind kKind>
class PoolOp : public OpKernel {
 public:
  explicit PoolOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadPoolAttrs(ctx, &attrs_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    StatusOr<PoolDims> dims = ComputePoolDims(input.shape(), attrs_);
    OP_REQUIRES_OK(ctx, dims.status());
    const PoolDims& d = *dims;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, d.output_shape(), &out));
    if (out->NumElements() == 0) return;
    const T* in = input.data<T>();
    T* o = out->data<T>();
    const int64_t depth = d.depth;
    const int64_t row_cost = d.out_cols * d.window_rows * d.window_cols * depth;
    // One task per (image, output row): tasks write disjoint output rows.
    ParallelFor(ctx, d.batch * d.out_rows, row_cost, [&](int64_t begin, int64_t end) {
      for (int64_t t = begin; t < end; ++t) {
        const int64_t n = t / d.out_rows, oy = t % d.out_rows;
        int64_t y0, y1;
        d.RowRange(oy, &y0, &y1);
        const T* image = in + n * d.in_rows * d.in_cols * depth;
        for (int64_t ox = 0; ox < d.out_cols; ++ox) {
          int64_t x0, x1;
          d.ColRange(ox, &x0, &x1);
          T* dst = o + ((n * d.out_rows + oy) * d.out_cols + ox) * depth;
          const T init = kKind == PoolKind::kMax ? -std::numeric_limits<T>::infinity() : T(0);
          std::fill(dst, dst + depth, init);
          for (int64_t y = y0; y < y1; ++y) {
            for (int64_t x = x0; x < x1; ++x) {
              const T* src = image + (y * d.in_cols + x) * depth;
              for (int64_t c = 0; c < depth; ++c) {
                if constexpr (kKind == PoolKind::kMax) {
                  dst[c] = src[c] > dst[c] ? src[c] : dst[c];
                } else {
                  dst[c] += src[c];
                }
              }
            }
          }
          if constexpr (kKind == PoolKind::kAvg) {
            const T inv = T(1) / static_cast<T>((y1 - y0) * (x1 - x0));
            for (int64_t c = 0; c < depth; ++c) dst[c] *= inv;
          }
        }
      }
    });
  }

 private:
  PoolAttrs attrs_;
};

#define TACT_REGISTER(T)                                                               \
  REGISTER_KERNEL_BUILDER(Name("MaxPool").Device(DEVICE_CPU).TypeConstraint<T>("T"),   \
                          PoolOp<T, PoolKind::kMax>);                                  \
  REGISTER_KERNEL_BUILDER(Name("AvgPool").Device(DEVICE_CPU).TypeConstraint<T>("T"),   \
                          PoolOp<T, PoolKind::kAvg>)
TACT_REGISTER(float);
TACT_REGISTER(double);
#undef TACT_REGISTER

}  // namespace
}  // namespace tact

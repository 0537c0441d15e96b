// The gradients of Conv2D, as TensorFlow defines them, built from the same
// im2col / GEMM pieces as the forward pass:
//   Conv2DBackpropInput:  col = out_backprop [pixels, Cout] x filter^T, then
//                         col2im adds each patch back onto the input grad.
//   Conv2DBackpropFilter: filter_grad [KH*KW*Cin, Cout] = sum over chunks of
//                         im2col(input)^T x out_backprop.
// Threads take whole groups of chunks (ForEachConvChunk). The filter
// gradient sums its chunks into one partial per group, then the partials in
// group order; groups depend only on the geometry, so the summation order
// (and the bits) do not depend on the thread count.
#include <algorithm>

#include "kernels/cpu/blas_gemm.h"
#include "kernels/cpu/conv_util.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/parallel_gemm.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

template <typename T>
class Conv2DBackpropInputOp : public ConvOpKernel {
 public:
  using ConvOpKernel::ConvOpKernel;

  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    StatusOr<Conv2DDims> dims = StartConvBackprop(ctx, attrs_, ConvBackprop::kInput, false, &out);
    OP_REQUIRES_OK(ctx, dims.status());
    const Conv2DDims& d = *dims;
    const Tensor& filter = ctx->input(1);
    const Tensor& dy = ctx->input(2);
    T* dx = out->data<T>();
    if (out->NumElements() == 0) return;
    const T* f = filter.data<T>();
    const T* g = dy.data<T>();
    const int64_t k = d.patch_size();
    const int64_t p = d.out_pixels();
    if (d.IsPointwise()) {
      ParallelGemm<T>(ctx, false, true, d.batch * p, k, d.out_depth, T(1), g, f, T(0), dx);
      return;
    }
    if (p == 0) {
      std::fill(dx, dx + out->NumElements(), T(0));
      return;
    }
    const int64_t image_size = d.in_rows * d.in_cols * d.in_depth;
    const ConvBatchSplit split = SplitConvBatch(d, sizeof(T));
    OP_REQUIRES_OK(ctx, ForEachConvChunk<T>(ctx, d, split, [&](int64_t, int64_t b0, int64_t n, T* c) {
      Gemm<T>(false, true, n * p, k, d.out_depth, T(1), g + b0 * p * d.out_depth, f, T(0), c);
      // A chunk's col2im writes only its own images, which no other chunk touches.
      T* dxb = dx + b0 * image_size;
      std::fill(dxb, dxb + n * image_size, T(0));
      for (int64_t i = 0; i < n; ++i) Col2Im<T>(d, c + i * p * k, dxb + i * image_size);
    }));
  }

};

template <typename T>
class Conv2DBackpropFilterOp : public ConvOpKernel {
 public:
  using ConvOpKernel::ConvOpKernel;

  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    StatusOr<Conv2DDims> dims = StartConvBackprop(ctx, attrs_, ConvBackprop::kFilter, false, &out);
    OP_REQUIRES_OK(ctx, dims.status());
    const Conv2DDims& d = *dims;
    const Tensor& input = ctx->input(0);
    const Tensor& dy = ctx->input(2);
    T* df = out->data<T>();
    std::fill(df, df + out->NumElements(), T(0));
    const int64_t k = d.patch_size();
    const int64_t p = d.out_pixels();
    if (out->NumElements() == 0 || d.batch * p == 0) return;
    const T* in = input.data<T>();
    const T* g = dy.data<T>();
    if (d.IsPointwise()) {
      ParallelGemm<T>(ctx, true, false, k, d.out_depth, d.batch * p, T(1), in, g, T(0), df);
      return;
    }
    const ConvBatchSplit split = SplitConvBatch(d, sizeof(T));
    const int64_t size = k * d.out_depth;
    // One group writes df itself: no partials, no final sum.
    Tensor partials;
    if (split.groups > 1) {
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(DataTypeToEnum<T>::value,
                                             TensorShape({split.groups, size}), &partials));
    }
    T* part = split.groups > 1 ? partials.data<T>() : df;
    const int64_t image_size = d.in_rows * d.in_cols * d.in_depth;
    OP_REQUIRES_OK(ctx, ForEachConvChunk<T>(ctx, d, split, [&](int64_t grp, int64_t b0, int64_t n, T* c) {
      for (int64_t i = 0; i < n; ++i) Im2Col<T>(d, in + (b0 + i) * image_size, c + i * p * k);
      // A group's first chunk overwrites its partial, later ones accumulate.
      const bool first = b0 == grp * split.images_per_group();
      Gemm<T>(true, false, k, d.out_depth, n * p, T(1), c, g + b0 * p * d.out_depth,
              first ? T(0) : T(1), part + grp * size);
    }));
    if (split.groups > 1) {
      // Element by element, the partials in group order.
      ParallelFor(ctx, size, split.groups, [&](int64_t begin, int64_t end) {
        for (int64_t e = begin; e < end; ++e) {
          T sum = part[e];
          for (int64_t grp = 1; grp < split.groups; ++grp) sum += part[grp * size + e];
          df[e] = sum;
        }
      });
    }
  }

};

#define TACT_REGISTER(T)                                                                        \
  REGISTER_KERNEL_BUILDER(                                                                      \
      Name("Conv2DBackpropInput").Device(DEVICE_CPU).TypeConstraint<T>("T"),                    \
      Conv2DBackpropInputOp<T>);                                                                \
  REGISTER_KERNEL_BUILDER(                                                                      \
      Name("Conv2DBackpropFilter").Device(DEVICE_CPU).TypeConstraint<T>("T"),                   \
      Conv2DBackpropFilterOp<T>)
TACT_REGISTER(float);
TACT_REGISTER(double);
#undef TACT_REGISTER

}  // namespace
}  // namespace tact

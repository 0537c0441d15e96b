// Conv2D on CPU: im2col into a buffer, then one GEMM for a chunk of images
// (the NHWC output of a chunk is exactly the GEMM's [images*pixels, Cout]
// result, so the product lands in the output with no copy). Each of the
// device's threads takes whole groups of chunks (ForEachConvChunk), so a
// chunk's im2col and GEMM run back to back on one core. A pointwise (1x1,
// stride 1) convolution skips im2col and is one ParallelGemm.
#include "kernels/cpu/blas_gemm.h"
#include "kernels/cpu/conv_util.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/parallel_gemm.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

template <typename T>
class Conv2DOp : public ConvOpKernel {
 public:
  using ConvOpKernel::ConvOpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    StatusOr<Conv2DDims> dims = ComputeConv2DDims(input.shape(), filter.shape(), attrs_);
    OP_REQUIRES_OK(ctx, dims.status());
    const Conv2DDims& d = *dims;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0, TensorShape({d.batch, d.out_rows, d.out_cols, d.out_depth}), &out));
    if (out->NumElements() == 0) return;
    const T* in = input.data<T>();
    const T* f = filter.data<T>();
    T* o = out->data<T>();
    const int64_t k = d.patch_size();
    const int64_t p = d.out_pixels();
    if (d.IsPointwise()) {
      ParallelGemm<T>(ctx, false, false, d.batch * p, d.out_depth, k, T(1), in, f, T(0), o);
      return;
    }
    const int64_t image_size = d.in_rows * d.in_cols * d.in_depth;
    const ConvBatchSplit split = SplitConvBatch(d, sizeof(T));
    OP_REQUIRES_OK(ctx, ForEachConvChunk<T>(ctx, d, split, [&](int64_t, int64_t b0, int64_t n, T* c) {
      for (int64_t i = 0; i < n; ++i) Im2Col<T>(d, in + (b0 + i) * image_size, c + i * p * k);
      Gemm<T>(false, false, n * p, d.out_depth, k, T(1), c, f, T(0), o + b0 * p * d.out_depth);
    }));
  }

};

REGISTER_KERNEL_BUILDER(Name("Conv2D").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                        Conv2DOp<float>);
REGISTER_KERNEL_BUILDER(Name("Conv2D").Device(DEVICE_CPU).TypeConstraint<double>("T"),
                        Conv2DOp<double>);

}  // namespace
}  // namespace tact

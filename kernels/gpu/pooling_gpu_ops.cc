// MaxPool, AvgPool and their gradients on a GPU device, through cuDNN,
// NHWC as on the CPU. AvgPool divides by the in-bounds elements of each
// window, as the CPU kernel does (CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING).
//
// cuDNN pads symmetrically; SAME pooling that puts one more row or column
// after than before is Unimplemented here (the padding would have to read
// as -inf for a max and be left out of an average's count, which a padded
// copy of the input cannot do). The runtime's models pool with VALID.
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/pooling_util.h"
#include "kernels/gpu/cudnn_util.h"
#include "kernels/gpu/gpu_kernel_util.h"
#include "kernels/kernel_registry.h"

namespace tact::gpu {
namespace {

int64_t ExtraPadding(int64_t in, int64_t out, int64_t stride, int64_t window, int64_t pad_before) {
  const int64_t total = std::max<int64_t>(0, (out - 1) * stride + window - in);
  return total - 2 * pad_before;
}

struct PoolSetup {
  TensorDescriptor x, y;
  PoolingDescriptor pool;
};

Status Setup(DataType dtype, const PoolDims& d, cudnnPoolingMode_t mode, PoolSetup* s) {
  if (ExtraPadding(d.in_rows, d.out_rows, d.stride_rows, d.window_rows, d.pad_rows) != 0 ||
      ExtraPadding(d.in_cols, d.out_cols, d.stride_cols, d.window_cols, d.pad_cols) != 0) {
    return errors::Unimplemented(
        "pooling on a GPU with SAME padding that is larger after than before (input ", d.in_rows, "x",
        d.in_cols, ", window ", d.window_rows, "x", d.window_cols, ", strides ", d.stride_rows, "x",
        d.stride_cols, "); use VALID padding");
  }
  TACT_RETURN_IF_ERROR(s->x.SetNhwc(dtype, d.batch, d.in_rows, d.in_cols, d.depth));
  TACT_RETURN_IF_ERROR(s->y.SetNhwc(dtype, d.batch, d.out_rows, d.out_cols, d.depth));
  return CudnnStatus(
      cudnnSetPooling2dDescriptor(s->pool.get(), mode, CUDNN_NOT_PROPAGATE_NAN,
                                  static_cast<int>(d.window_rows), static_cast<int>(d.window_cols),
                                  static_cast<int>(d.pad_rows), static_cast<int>(d.pad_cols),
                                  static_cast<int>(d.stride_rows), static_cast<int>(d.stride_cols)),
      "cudnnSetPooling2dDescriptor");
}

class PoolGpuBase : public OpKernel {
 public:
  explicit PoolGpuBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadPoolAttrs(ctx, &attrs_));
  }

 protected:
  PoolAttrs attrs_;
};

template <cudnnPoolingMode_t kMode>
class PoolGpuOp : public PoolGpuBase {
 public:
  using PoolGpuBase::PoolGpuBase;
  void Compute(OpKernelContext* ctx) override {
    GpuDevice* device = KernelDevice(ctx);
    if (device == nullptr) return;
    const Tensor& input = ctx->input(0);
    StatusOr<PoolDims> dims = ComputePoolDims(input.shape(), attrs_);
    OP_REQUIRES_OK(ctx, dims.status());
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, dims->output_shape(), &out));
    if (out->NumElements() == 0) return;
    PoolSetup s;
    OP_REQUIRES_OK(ctx, Setup(input.dtype(), *dims, kMode, &s));
    CudnnScales scales(input.dtype());
    OP_REQUIRES_OK(
        ctx, CudnnStatus(cudnnPoolingForward(device->cudnn(), s.pool.get(), scales.one(), s.x.get(),
                                             input.raw_data(), scales.zero(), s.y.get(), out->raw_data()),
                         "cudnnPoolingForward"));
  }
};

class MaxPoolGradGpuOp : public PoolGpuBase {
 public:
  using PoolGpuBase::PoolGpuBase;
  void Compute(OpKernelContext* ctx) override {
    GpuDevice* device = KernelDevice(ctx);
    if (device == nullptr) return;
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    const Tensor& dy = ctx->input(2);
    StatusOr<PoolDims> dims = ComputePoolDims(x.shape(), attrs_);
    OP_REQUIRES_OK(ctx, dims.status());
    OP_REQUIRES(ctx, y.shape() == dims->output_shape() && dy.shape() == dims->output_shape(),
                errors::InvalidArgument("MaxPoolGrad: orig_output ", y.shape().DebugString(), " and grad ",
                                        dy.shape().DebugString(), " must have the pooled shape ",
                                        dims->output_shape().DebugString()));
    Tensor* dx;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &dx));
    if (dx->NumElements() == 0) return;
    if (dy.NumElements() == 0) {
      CudaOk(ctx, cudaMemsetAsync(dx->raw_data(), 0, dx->TotalBytes(), device->compute_stream()),
             "cudaMemsetAsync");
      return;
    }
    PoolSetup s;
    OP_REQUIRES_OK(ctx, Setup(x.dtype(), *dims, CUDNN_POOLING_MAX_DETERMINISTIC, &s));
    CudnnScales scales(x.dtype());
    OP_REQUIRES_OK(
        ctx, CudnnStatus(cudnnPoolingBackward(device->cudnn(), s.pool.get(), scales.one(), s.y.get(),
                                              y.raw_data(), s.y.get(), dy.raw_data(), s.x.get(), x.raw_data(),
                                              scales.zero(), s.x.get(), dx->raw_data()),
                         "cudnnPoolingBackward (max)"));
  }
};

class AvgPoolGradGpuOp : public PoolGpuBase {
 public:
  using PoolGpuBase::PoolGpuBase;
  void Compute(OpKernelContext* ctx) override {
    GpuDevice* device = KernelDevice(ctx);
    if (device == nullptr) return;
    StatusOr<std::vector<int64_t>> sizes = ReadIntVector(ctx->input(0), "orig_input_shape");
    OP_REQUIRES_OK(ctx, sizes.status());
    StatusOr<TensorShape> shape = TensorShape::FromDims(*sizes);
    OP_REQUIRES_OK(ctx, shape.status());
    const Tensor& dy = ctx->input(1);
    StatusOr<PoolDims> dims = ComputePoolDims(*shape, attrs_);
    OP_REQUIRES_OK(ctx, dims.status());
    OP_REQUIRES(ctx, dy.shape() == dims->output_shape(),
                errors::InvalidArgument("AvgPoolGrad: grad ", dy.shape().DebugString(),
                                        " must have the pooled shape ", dims->output_shape().DebugString()));
    Tensor* dx;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &dx));
    if (dx->NumElements() == 0) return;
    if (dy.NumElements() == 0) {
      CudaOk(ctx, cudaMemsetAsync(dx->raw_data(), 0, dx->TotalBytes(), device->compute_stream()),
             "cudaMemsetAsync");
      return;
    }
    PoolSetup s;
    OP_REQUIRES_OK(ctx, Setup(dy.dtype(), *dims, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, &s));
    CudnnScales scales(dy.dtype());
    // An average's gradient reads neither the input nor the output: cuDNN
    // is given the gradient buffers in their places.
    OP_REQUIRES_OK(ctx,
                   CudnnStatus(cudnnPoolingBackward(device->cudnn(), s.pool.get(), scales.one(), s.y.get(),
                                                    dy.raw_data(), s.y.get(), dy.raw_data(), s.x.get(),
                                                    dx->raw_data(), scales.zero(), s.x.get(), dx->raw_data()),
                               "cudnnPoolingBackward (average)"));
  }
};

#define TACT_REGISTER_GPU_POOL(T)                                                                           \
  REGISTER_KERNEL_BUILDER(Name("MaxPool").Device(DEVICE_GPU).TypeConstraint<T>("T"),                        \
                          PoolGpuOp<CUDNN_POOLING_MAX_DETERMINISTIC>);                                      \
  REGISTER_KERNEL_BUILDER(Name("AvgPool").Device(DEVICE_GPU).TypeConstraint<T>("T"),                        \
                          PoolGpuOp<CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING>);                          \
  REGISTER_KERNEL_BUILDER(Name("MaxPoolGrad").Device(DEVICE_GPU).TypeConstraint<T>("T"), MaxPoolGradGpuOp); \
  REGISTER_KERNEL_BUILDER(Name("AvgPoolGrad").Device(DEVICE_GPU).TypeConstraint<T>("T"), AvgPoolGradGpuOp);
TACT_REGISTER_GPU_POOL(float)
TACT_REGISTER_GPU_POOL(double)
#undef TACT_REGISTER_GPU_POOL

}  // namespace
}  // namespace tact::gpu

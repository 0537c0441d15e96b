// GPU kernels of BiasAdd and BiasAddGrad, float and double, NHWC (the
// channel is the last dimension), with the CPU kernels' checks
// (kernels/cpu/bias_op.cc). NCHW fails at construction with a clear error
// rather than computing the wrong thing. BiasAddGrad sums the rows with the
// deterministic column reduction of reduction_launch.h.
#include <vector>

#include "kernels/cpu/op_checks.h"
#include "kernels/gpu/bias_add_launch.h"
#include "kernels/gpu/element_type_of.h"
#include "kernels/gpu/fill_launch.h"
#include "kernels/gpu/gpu_kernel_util.h"
#include "kernels/gpu/reduction_launch.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

class GpuBiasAddOp : public OpKernel {
 public:
  explicit GpuBiasAddOp(OpKernelConstruction* ctx) : OpKernel(ctx) { ReadNhwcFormat(ctx); }

  void Compute(OpKernelContext* ctx) override {
    gpu::GpuDevice* d = gpu::KernelDevice(ctx);
    if (!d) return;
    const Tensor& value = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    OP_REQUIRES_OK(ctx, CheckBiasAdd(value, bias));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, value.shape(), &out));
    const int64_t c = bias.dim_size(0);
    if (c == 0 || value.NumElements() == 0) return;
    gpu::CudaOk(ctx,
                gpu::LaunchBiasAdd(*gpu::ElementTypeOf(value.dtype()), value.raw_data(),
                                   bias.raw_data(), out->raw_data(), value.NumElements() / c, c,
                                   d->compute_stream()),
                "BiasAdd");
  }
};

class GpuBiasAddGradOp : public OpKernel {
 public:
  explicit GpuBiasAddGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) { ReadNhwcFormat(ctx); }

  void Compute(OpKernelContext* ctx) override {
    gpu::GpuDevice* d = gpu::KernelDevice(ctx);
    if (!d) return;
    const Tensor& g = ctx->input(0);
    OP_REQUIRES_OK(ctx, CheckBiasAddGrad(g));
    const int64_t c = g.dim_size(g.dims() - 1);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({c}), &out));
    if (c == 0) return;
    const gpu::ElementType type = *gpu::ElementTypeOf(g.dtype());
    const int64_t rows = g.NumElements() / c;
    if (rows == 0) {  // no rows: the sums are 0
      gpu::CudaOk(ctx, gpu::LaunchFillConstant(type, 0.0, out->raw_data(), c, d->compute_stream()),
                  "BiasAddGrad");
      return;
    }
    Tensor scratch;
    const int64_t scratch_n = gpu::ReduceScratchElements(1, rows, c);
    if (scratch_n > 0) {
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(g.dtype(), TensorShape({scratch_n}), &scratch));
    }
    gpu::CudaOk(ctx,
                gpu::LaunchReduce(gpu::ReduceKind::kSum, type, g.raw_data(), out->raw_data(), 1,
                                  rows, c, 1, scratch.raw_data(), d->compute_stream()),
                "BiasAddGrad");
  }
};

const std::vector<DataType> kTypes = {DT_FLOAT, DT_DOUBLE};
REGISTER_KERNEL_BUILDER(Name("BiasAdd").Device(DEVICE_GPU).TypeConstraint("T", kTypes),
                        GpuBiasAddOp);
REGISTER_KERNEL_BUILDER(Name("BiasAddGrad").Device(DEVICE_GPU).TypeConstraint("T", kTypes),
                        GpuBiasAddGradOp);

}  // namespace
}  // namespace tact

// GPU kernels of Fill, ZerosLike and OnesLike for float, double, half,
// bfloat16, int64 and bool (kernels/cpu/fill_ops.cc). Fill's dims must be
// int32 (index_type): a GPU device keeps int32 in host memory, where the
// host reads the shape; its value is a device scalar that the CUDA kernel
// reads, never copied back.
#include <vector>

#include "kernels/cpu/op_checks.h"
#include "kernels/gpu/element_type_of.h"
#include "kernels/gpu/fill_launch.h"
#include "kernels/gpu/gpu_kernel_util.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

class GpuFillOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    gpu::GpuDevice* d = gpu::KernelDevice(ctx);
    if (!d) return;
    const Tensor& dims = ctx->input(0);
    const Tensor& value = ctx->input(1);
    StatusOr<TensorShape> shape = FillShape(dims, value);
    OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    gpu::CudaOk(ctx,
                gpu::LaunchFillFromDevice(*gpu::ElementTypeOf(value.dtype()), value.raw_data(),
                                          out->raw_data(), out->NumElements(),
                                          d->compute_stream()),
                "Fill");
  }
};

// ZerosLike (kValue = 0) and OnesLike (kValue = 1).
template <int kValue>
class GpuConstantLikeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    gpu::GpuDevice* d = gpu::KernelDevice(ctx);
    if (!d) return;
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    gpu::CudaOk(ctx,
                gpu::LaunchFillConstant(*gpu::ElementTypeOf(x.dtype()), kValue, out->raw_data(),
                                        out->NumElements(), d->compute_stream()),
                type_string().c_str());
  }
};

const std::vector<DataType> kTypes = {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16, DT_INT64, DT_BOOL};
REGISTER_KERNEL_BUILDER(Name("Fill").Device(DEVICE_GPU).TypeConstraint("T", kTypes)
                            .TypeConstraint<int32_t>("index_type"),
                        GpuFillOp);
REGISTER_KERNEL_BUILDER(Name("ZerosLike").Device(DEVICE_GPU).TypeConstraint("T", kTypes),
                        GpuConstantLikeOp<0>);
REGISTER_KERNEL_BUILDER(Name("OnesLike").Device(DEVICE_GPU).TypeConstraint("T", kTypes),
                        GpuConstantLikeOp<1>);

}  // namespace
}  // namespace tact

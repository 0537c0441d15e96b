// Const and IsVariableInitialized on a GPU device: the two kernels of the
// graph's plumbing whose output must be put into device memory.
#include "kernels/gpu/gpu_kernel_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/variable.h"

namespace tact::gpu {
namespace {

// The value is copied to the device once, when the kernel is built; every
// step then shares that buffer, as a CPU Const shares its attr's.
class ConstGpuOp : public OpKernel {
 public:
  explicit ConstGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Tensor value;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("value", &value));
    DataType dtype;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype));
    OP_REQUIRES(ctx, value.dtype() == dtype,
                errors::InvalidArgument("attr 'value' is ", DataTypeString(value.dtype()),
                                        " but 'dtype' is ", DataTypeString(dtype)));
    if (KeptInHostMemory(dtype)) {
      value_ = std::move(value);
      return;
    }
    GpuDevice* device = AsGpuDevice(ctx->device());
    OP_REQUIRES(ctx, device != nullptr, errors::Internal("a GPU Const built for ", ctx->device()->name()));
    StatusOr<Tensor> on_device = device->CopyHostToDevice(value);
    OP_REQUIRES_OK(ctx, on_device.status());
    value_ = std::move(on_device).value();
  }
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, value_); }
  bool IsExpensive() const override { return false; }

 private:
  Tensor value_;
};

class IsVariableInitializedGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    GpuDevice* device = KernelDevice(ctx);
    if (device == nullptr) return;
    auto var = VarFromRef(ctx->input(0));
    OP_REQUIRES_OK(ctx, var.status());
    bool initialized;
    {
      std::lock_guard<std::mutex> lock(*(*var)->mu());
      initialized = (*var)->initialized();
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    // A bool is one byte: a memset on the stream writes it with no host
    // buffer to keep alive.
    CudaOk(ctx, cudaMemsetAsync(out->raw_data(), initialized ? 1 : 0, 1, device->compute_stream()),
           "cudaMemsetAsync");
  }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("Const").Device(DEVICE_GPU), ConstGpuOp);
REGISTER_KERNEL_BUILDER(Name("IsVariableInitialized").Device(DEVICE_GPU), IsVariableInitializedGpuOp);

}  // namespace
}  // namespace tact::gpu

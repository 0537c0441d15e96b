// GPU kernel of Cast between float, double, half, bfloat16, int64 and bool
// (the dtypes a GPU device keeps in device memory; semantics of
// kernels/cpu/cast_op.cc). int32 is left to the CPU kernel: a GPU device
// keeps int32 in host memory, so a cast to or from it would wait on a copy.
#include <vector>

#include "kernels/gpu/cast_launch.h"
#include "kernels/gpu/element_type_of.h"
#include "kernels/gpu/gpu_kernel_util.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

class GpuCastOp : public OpKernel {
 public:
  explicit GpuCastOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("SrcT", &src_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("DstT", &dst_));
  }

  void Compute(OpKernelContext* ctx) override {
    gpu::GpuDevice* d = gpu::KernelDevice(ctx);
    if (!d) return;
    const Tensor& x = ctx->input(0);
    if (src_ == dst_) {  // nothing to convert: share the buffer
      ctx->set_output(0, x);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    gpu::CudaOk(ctx,
                gpu::LaunchCast(*gpu::ElementTypeOf(src_), *gpu::ElementTypeOf(dst_), x.raw_data(),
                                out->raw_data(), x.NumElements(), d->compute_stream()),
                "Cast");
  }

 private:
  DataType src_ = DT_INVALID, dst_ = DT_INVALID;
};

const std::vector<DataType> kTypes = {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16, DT_INT64, DT_BOOL};
REGISTER_KERNEL_BUILDER(Name("Cast").Device(DEVICE_GPU).TypeConstraint("SrcT", kTypes)
                            .TypeConstraint("DstT", kTypes),
                        GpuCastOp);

}  // namespace
}  // namespace tact

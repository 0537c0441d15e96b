// SelectV2: out = condition ? t : e, the three broadcast together by
// NumPy's rules. An input of another shape than the output is first
// broadcast to it (a strided copy), then the choice is element-wise.
// Elements are moved, never computed on, so one instantiation per element
// size serves every dtype.
#include <vector>

#include "kernels/cpu/array_util.h"
#include "kernels/cpu/broadcast.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

class SelectV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    const Tensor& t = ctx->input(1);
    const Tensor& e = ctx->input(2);
    const BCast te(t.shape().dim_sizes(), e.shape().dim_sizes());
    const BCast all(cond.shape().dim_sizes(), te.output_shape());
    OP_REQUIRES(ctx, te.IsValid() && all.IsValid(),
                errors::InvalidArgument("condition ", cond.shape().DebugString(), ", t ",
                                        t.shape().DebugString(), " and e ",
                                        e.shape().DebugString(), " do not broadcast together"));
    const std::vector<int64_t>& dims = all.output_shape();
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    if (out->NumElements() == 0) return;
    Tensor c_full, t_full, e_full;
    OP_REQUIRES_OK(ctx, Broadcast(ctx, cond, dims, &c_full));
    OP_REQUIRES_OK(ctx, Broadcast(ctx, t, dims, &t_full));
    OP_REQUIRES_OK(ctx, Broadcast(ctx, e, dims, &e_full));
    const bool* pc = c_full.data<bool>();
    OP_REQUIRES(ctx, VisitByElementSize(t.dtype(), [&]<typename U>() {
                  const U* pt = static_cast<const U*>(t_full.raw_data());
                  const U* pe = static_cast<const U*>(e_full.raw_data());
                  U* po = static_cast<U*>(out->raw_data());
                  ParallelFor(ctx, out->NumElements(), 2, [&](int64_t b, int64_t end) {
                    for (int64_t i = b; i < end; ++i) po[i] = pc[i] ? pt[i] : pe[i];
                  });
                }),
                UnsupportedDtype(t.dtype()));
  }

 private:
  // `in` as a tensor of `dims`: itself where it has that shape already.
  static Status Broadcast(OpKernelContext* ctx, const Tensor& in, const std::vector<int64_t>& dims,
                          Tensor* full) {
    if (in.shape().dim_sizes() == dims) {
      *full = in;
      return Status::OK();
    }
    TACT_ASSIGN_OR_RETURN(std::vector<int64_t> strides, BroadcastStrides(in.shape(), dims));
    TACT_RETURN_IF_ERROR(ctx->allocate_temp(in.dtype(), TensorShape(dims), full));
    return StridedCopy(ctx, in, 0, dims, strides, full);
  }
};

REGISTER_KERNEL_BUILDER(Name("SelectV2").Device(DEVICE_CPU), SelectV2Op);

}  // namespace
}  // namespace tact

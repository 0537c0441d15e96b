// ReverseV2 and BroadcastTo: copies with strides (StridedCopy), a negative
// stride along each reversed dimension and a zero stride along each
// broadcast one; on any dtype, strings included.
#include <vector>

#include "kernels/cpu/array_util.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

class ReverseV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& axis_t = ctx->input(1);
    OP_REQUIRES(ctx, axis_t.dims() == 1,
                errors::InvalidArgument("axis must be a vector, got shape ",
                                        axis_t.shape().DebugString()));
    const int rank = in.dims();
    std::vector<bool> reversed(rank, false);
    for (int64_t a : ReadIndices(axis_t)) {
      StatusOr<int> d = NormalizeAxis(a, rank);
      OP_REQUIRES_OK(ctx, d.status());
      OP_REQUIRES(ctx, !reversed[*d],
                  errors::InvalidArgument("axis ", a, " is given more than once"));
      reversed[*d] = true;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    if (out->NumElements() == 0) return;
    std::vector<int64_t> strides = RowMajorStrides(in.shape().dim_sizes());
    int64_t base = 0;
    for (int d = 0; d < rank; ++d) {
      if (!reversed[d]) continue;
      base += (in.dim_size(d) - 1) * strides[d];  // start at the dimension's end
      strides[d] = -strides[d];
    }
    OP_REQUIRES_OK(ctx, StridedCopy(ctx, in, base, in.shape().dim_sizes(), strides, out));
  }
};

class BroadcastToOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    OP_REQUIRES(ctx, ctx->input(1).dims() == 1,
                errors::InvalidArgument("shape must be a vector, got shape ",
                                        ctx->input(1).shape().DebugString()));
    StatusOr<std::vector<int64_t>> target = ReadIntVector(ctx->input(1), "shape");
    OP_REQUIRES_OK(ctx, target.status());
    StatusOr<TensorShape> out_shape = TensorShape::FromDims(*target);
    OP_REQUIRES_OK(ctx, out_shape.status());
    StatusOr<std::vector<int64_t>> strides = BroadcastStrides(in.shape(), *target);
    OP_REQUIRES_OK(ctx, strides.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &out));
    if (out->NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, StridedCopy(ctx, in, 0, *target, *strides, out));
  }
};

REGISTER_KERNEL_BUILDER(Name("ReverseV2").Device(DEVICE_CPU), ReverseV2Op);
REGISTER_KERNEL_BUILDER(Name("BroadcastTo").Device(DEVICE_CPU), BroadcastToOp);

}  // namespace
}  // namespace tact

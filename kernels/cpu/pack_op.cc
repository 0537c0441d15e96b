// Pack and Unpack: stack N tensors of one shape along a new axis, and take
// them apart again. Pack is ConcatRows with every input [outer, inner];
// Unpack is SplitRows.
#include "kernels/cpu/array_util.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

class PackOp : public OpKernel {
 public:
  explicit PackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("axis", &axis_));
  }
  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs();
    const Tensor& first = ctx->input(0);
    // The new axis may go anywhere in [0, rank].
    StatusOr<int> axis = NormalizeAxis(axis_, first.dims() + 1);
    OP_REQUIRES_OK(ctx, axis.status());
    std::vector<const Tensor*> inputs;
    for (int i = 0; i < n; ++i) {
      const Tensor& t = ctx->input(i);
      OP_REQUIRES(ctx, t.shape() == first.shape(),
                  errors::InvalidArgument("values[", i, "] has shape ", t.shape().DebugString(),
                                          " but values[0] has shape ",
                                          first.shape().DebugString(), "; all must match"));
      inputs.push_back(&t);
    }
    TensorShape out_shape = first.shape();
    out_shape.InsertDim(*axis, n);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    int64_t outer = 1;
    for (int d = 0; d < *axis; ++d) outer *= first.dim_size(d);
    OP_REQUIRES_OK(ctx, ConcatRows(ctx, inputs, outer, out));
  }

 private:
  int64_t axis_ = 0;
};

class UnpackOp : public OpKernel {
 public:
  explicit UnpackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("axis", &axis_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(0);
    const int num = ctx->num_outputs();
    StatusOr<int> axis = NormalizeAxis(axis_, value.dims());
    OP_REQUIRES_OK(ctx, axis.status());
    OP_REQUIRES(ctx, value.dim_size(*axis) == num,
                errors::InvalidArgument("num ", num, " does not match dimension ", *axis,
                                        " of size ", value.dim_size(*axis), " (value shape ",
                                        value.shape().DebugString(), ")"));
    TensorShape piece = value.shape();
    piece.RemoveDim(*axis);
    std::vector<Tensor*> outs(num);
    for (int i = 0; i < num; ++i) OP_REQUIRES_OK(ctx, ctx->allocate_output(i, piece, &outs[i]));
    int64_t outer = 1;
    for (int d = 0; d < *axis; ++d) outer *= value.dim_size(d);
    OP_REQUIRES_OK(ctx, SplitRows(ctx, value, outer, outs));
  }

 private:
  int64_t axis_ = 0;
};

REGISTER_KERNEL_BUILDER(Name("Pack").Device(DEVICE_CPU), PackOp);
REGISTER_KERNEL_BUILDER(Name("Unpack").Device(DEVICE_CPU), UnpackOp);

}  // namespace
}  // namespace tact

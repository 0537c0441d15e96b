// Split: cuts a tensor into num_split equal pieces along one axis; the
// inverse of ConcatV2 (SplitRows).
#include "kernels/cpu/array_util.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

class SplitOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& axis_t = ctx->input(0);
    const Tensor& value = ctx->input(1);
    const int num_split = ctx->num_outputs();
    OP_REQUIRES(ctx, axis_t.dims() == 0,
                errors::InvalidArgument("split_dim must be a scalar, got shape ",
                                        axis_t.shape().DebugString()));
    StatusOr<std::vector<int64_t>> axis_value = ReadIntVector(axis_t, "split_dim");
    OP_REQUIRES_OK(ctx, axis_value.status());
    StatusOr<int> axis = NormalizeAxis((*axis_value)[0], value.dims(), "split_dim");
    OP_REQUIRES_OK(ctx, axis.status());
    const int64_t dim = value.dim_size(*axis);
    OP_REQUIRES(ctx, dim % num_split == 0,
                errors::InvalidArgument("num_split ", num_split, " does not evenly divide "
                                        "dimension ", *axis, " of size ", dim, " (value shape ",
                                        value.shape().DebugString(), ")"));
    if (num_split == 1) {
      ctx->set_output(0, value);
      return;
    }
    TensorShape piece = value.shape();
    piece.set_dim(*axis, dim / num_split);
    std::vector<Tensor*> outs(num_split);
    for (int i = 0; i < num_split; ++i) {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(i, piece, &outs[i]));
    }
    int64_t outer = 1;
    for (int d = 0; d < *axis; ++d) outer *= value.dim_size(d);
    OP_REQUIRES_OK(ctx, SplitRows(ctx, value, outer, outs));
  }
};

REGISTER_KERNEL_BUILDER(Name("Split").Device(DEVICE_CPU), SplitOp);

}  // namespace
}  // namespace tact

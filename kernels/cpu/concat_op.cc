// ConcatV2 (values, then the axis) and Concat (concat_dim, then the
// values): join N tensors along one axis. Every input is a matrix
// [outer, dim_axis * inner] for the same `outer`, so the output is each
// row of the inputs side by side (ConcatRows).
#include "kernels/cpu/array_util.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

class ConcatOp : public OpKernel {
 public:
  explicit ConcatOp(OpKernelConstruction* ctx) : OpKernel(ctx), axis_first_(ctx->def().op == "Concat") {}
  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs() - 1;
    const int first_value = axis_first_ ? 1 : 0;
    const Tensor& axis_t = ctx->input(axis_first_ ? 0 : n);
    OP_REQUIRES(ctx, axis_t.dims() == 0,
                errors::InvalidArgument("axis must be a scalar, got shape ",
                                        axis_t.shape().DebugString()));
    StatusOr<std::vector<int64_t>> axis_value = ReadIntVector(axis_t, "axis");
    OP_REQUIRES_OK(ctx, axis_value.status());
    const Tensor& first = ctx->input(first_value);
    OP_REQUIRES(ctx, first.dims() > 0,
                errors::InvalidArgument("cannot concatenate scalars (use Pack); values[0] has "
                                        "shape []"));
    StatusOr<int> axis = NormalizeAxis((*axis_value)[0], first.dims());
    OP_REQUIRES_OK(ctx, axis.status());
    TensorShape out_shape = first.shape();
    int64_t axis_total = 0;
    std::vector<const Tensor*> inputs;
    for (int i = 0; i < n; ++i) {
      const Tensor& t = ctx->input(first_value + i);
      bool match = t.dims() == first.dims();
      for (int d = 0; match && d < first.dims(); ++d) {
        match = d == *axis || t.dim_size(d) == first.dim_size(d);
      }
      OP_REQUIRES(ctx, match,
                  errors::InvalidArgument("values[", i, "] has shape ", t.shape().DebugString(),
                                          " but values[0] has shape ", first.shape().DebugString(),
                                          ": all dimensions but axis ", *axis, " must match"));
      axis_total += t.dim_size(*axis);
      inputs.push_back(&t);
    }
    out_shape.set_dim(*axis, axis_total);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    int64_t outer = 1;
    for (int d = 0; d < *axis; ++d) outer *= first.dim_size(d);
    OP_REQUIRES_OK(ctx, ConcatRows(ctx, inputs, outer, out));
  }

 private:
  const bool axis_first_;
};

REGISTER_KERNEL_BUILDER(Name("ConcatV2").Device(DEVICE_CPU), ConcatOp);
REGISTER_KERNEL_BUILDER(Name("Concat").Device(DEVICE_CPU), ConcatOp);

}  // namespace
}  // namespace tact

// Gather and GatherV2: out[o..., i..., j...] = params[o..., indices[i...],
// j...], slices of params picked along one axis (Gather's is 0); GatherNd:
// out[i..., j...] = params[indices[i..., 0], ..., indices[i..., k-1], j...].
// Every index is checked: one out of range is an InvalidArgument naming its
// position and value, never a wild read.
#include <algorithm>

#include "kernels/cpu/array_util.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

// Slice k of out (`inner` elements each), for k = o * picks.size() + i,
// is slice o * limit + picks[i] of params: in each of `outer` blocks of
// `limit` slices, the picked ones.
void CopySlices(OpKernelContext* ctx, const Tensor& params, int64_t outer, int64_t limit,
                const std::vector<int64_t>& picks, int64_t inner, Tensor* out) {
  const int64_t n = static_cast<int64_t>(picks.size());
  OP_REQUIRES(ctx, VisitByElementSize(params.dtype(), [&]<typename U>() {
                const U* src = static_cast<const U*>(params.raw_data());
                U* dst = static_cast<U*>(out->raw_data());
                // One unit is one picked slice of `inner` elements.
                ParallelFor(ctx, outer * n, inner * 2, [&](int64_t begin, int64_t end) {
                  for (int64_t k = begin; k < end; ++k) {
                    const int64_t o = k / n, i = k % n;
                    const U* from = src + (o * limit + picks[i]) * inner;
                    std::copy(from, from + inner, dst + k * inner);
                  }
                });
              }),
              UnsupportedDtype(params.dtype()));
}

class GatherOp : public OpKernel {
 public:
  // validate_indices is accepted for TensorFlow's sake; indices are always
  // validated, since an unchecked one would read outside params.
  explicit GatherOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    with_axis_ = type_string() == "GatherV2";
    if (with_axis_) {
      int64_t batch_dims = 0;
      OP_REQUIRES_OK(ctx, ctx->GetAttr("batch_dims", &batch_dims));
      OP_REQUIRES(ctx, batch_dims == 0,
                  errors::Unimplemented("batch_dims ", batch_dims, ": only batch_dims 0 is supported"));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& params = ctx->input(0);
    const Tensor& indices_t = ctx->input(1);
    OP_REQUIRES(ctx, params.dims() >= 1,
                errors::InvalidArgument("params must be at least a vector, got shape ",
                                        params.shape().DebugString()));
    int axis = 0;
    if (with_axis_) {
      const Tensor& axis_t = ctx->input(2);
      OP_REQUIRES(ctx, axis_t.dims() == 0,
                  errors::InvalidArgument("axis must be a scalar, got shape ",
                                          axis_t.shape().DebugString()));
      auto a = NormalizeAxis(ReadIndices(axis_t)[0], params.dims());
      OP_REQUIRES_OK(ctx, a.status());
      axis = *a;
    }
    const std::vector<int64_t> indices = ReadIndices(indices_t);
    const int64_t limit = params.dim_size(axis);
    for (size_t i = 0; i < indices.size(); ++i) {
      OP_REQUIRES(ctx, indices[i] >= 0 && indices[i] < limit,
                  errors::InvalidArgument("indices", PositionString(i, indices_t.shape()), " = ",
                                          indices[i], " is not in [0, ", limit, ")"));
    }
    TensorShape out_shape;
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) {
      out_shape.AddDim(params.dim_size(d));
      outer *= params.dim_size(d);
    }
    for (int d = 0; d < indices_t.dims(); ++d) out_shape.AddDim(indices_t.dim_size(d));
    for (int d = axis + 1; d < params.dims(); ++d) {
      out_shape.AddDim(params.dim_size(d));
      inner *= params.dim_size(d);
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    CopySlices(ctx, params, outer, limit, indices, inner, out);
  }

 private:
  bool with_axis_ = false;
};

class GatherNdOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& params = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    StatusOr<std::vector<int64_t>> rows = RowsOfIndexVectors(indices, params.shape(), "params");
    OP_REQUIRES_OK(ctx, rows.status());
    const int k = static_cast<int>(indices.dim_size(indices.dims() - 1));
    TensorShape out_shape;
    for (int d = 0; d + 1 < indices.dims(); ++d) out_shape.AddDim(indices.dim_size(d));
    int64_t inner = 1;
    for (int d = k; d < params.dims(); ++d) {
      out_shape.AddDim(params.dim_size(d));
      inner *= params.dim_size(d);
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    CopySlices(ctx, params, 1, 0, *rows, inner, out);
  }
};

REGISTER_KERNEL_BUILDER(Name("Gather").Device(DEVICE_CPU), GatherOp);
REGISTER_KERNEL_BUILDER(Name("GatherV2").Device(DEVICE_CPU), GatherOp);
REGISTER_KERNEL_BUILDER(Name("GatherNd").Device(DEVICE_CPU), GatherNdOp);

}  // namespace
}  // namespace tact

// Gather: out[i..., j...] = params[indices[i...], j...], rows of params
// picked along axis 0. Every index is checked: one out of range is an
// InvalidArgument naming its position and value, never a wild read.
#include <algorithm>

#include "kernels/cpu/array_util.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

class GatherOp : public OpKernel {
 public:
  // validate_indices is accepted for TensorFlow's sake; indices are always
  // validated, since an unchecked one would read outside params.
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& params = ctx->input(0);
    const Tensor& indices_t = ctx->input(1);
    OP_REQUIRES(ctx, params.dims() >= 1,
                errors::InvalidArgument("params must be at least a vector, got shape ",
                                        params.shape().DebugString()));
    const std::vector<int64_t> indices = ReadIndices(indices_t);
    const int64_t limit = params.dim_size(0);
    for (size_t i = 0; i < indices.size(); ++i) {
      OP_REQUIRES(ctx, indices[i] >= 0 && indices[i] < limit,
                  errors::InvalidArgument("indices", PositionString(i, indices_t.shape()), " = ",
                                          indices[i], " is not in [0, ", limit, ")"));
    }
    TensorShape out_shape = indices_t.shape();
    for (int d = 1; d < params.dims(); ++d) out_shape.AddDim(params.dim_size(d));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    const int64_t inner = params.NumElements() / limit;
    OP_REQUIRES(ctx, VisitByElementSize(params.dtype(), [&]<typename U>() {
                  const U* src = static_cast<const U*>(params.raw_data());
                  U* dst = static_cast<U*>(out->raw_data());
                  ParallelFor(ctx, indices.size(), inner * 2, [&](int64_t begin, int64_t end) {
                    for (int64_t i = begin; i < end; ++i) {
                      const U* row = src + indices[i] * inner;
                      std::copy(row, row + inner, dst + i * inner);
                    }
                  });
                }),
                UnsupportedDtype(params.dtype()));
  }
};

REGISTER_KERNEL_BUILDER(Name("Gather").Device(DEVICE_CPU), GatherOp);

}  // namespace
}  // namespace tact

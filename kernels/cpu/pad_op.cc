// Pad: surrounds the input with zeros (empty strings, false):
// paddings[d] = [before, after] elements added to dimension d.
#include <algorithm>

#include "kernels/cpu/array_util.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

// Copies each innermost row of `in` to its place in `out`, which is already
// zero everywhere.
template <typename U>
void CopyInterior(OpKernelContext* ctx, const U* in, const std::vector<int64_t>& in_dims,
                  const std::vector<int64_t>& before, const std::vector<int64_t>& out_dims,
                  U* out) {
  const int r = static_cast<int>(in_dims.size());
  if (r == 0) {
    out[0] = in[0];
    return;
  }
  const std::vector<int64_t> out_strides = RowMajorStrides(out_dims);
  const int64_t inner = in_dims[r - 1];
  int64_t rows = 1;
  for (int d = 0; d + 1 < r; ++d) rows *= in_dims[d];
  ParallelFor(ctx, rows, inner * 2, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      int64_t offset = before[r - 1];
      for (int64_t rem = row, d = r - 2; d >= 0; --d) {
        offset += (rem % in_dims[d] + before[d]) * out_strides[d];
        rem /= in_dims[d];
      }
      std::copy(in + row * inner, in + (row + 1) * inner, out + offset);
    }
  });
}

class PadOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& paddings = ctx->input(1);
    const int rank = in.dims();
    OP_REQUIRES(ctx, paddings.dims() == 2 && paddings.dim_size(0) == rank &&
                         paddings.dim_size(1) == 2,
                errors::InvalidArgument("paddings must have shape [", rank,
                                        ",2] for input of shape ", in.shape().DebugString(),
                                        ", got shape ", paddings.shape().DebugString()));
    StatusOr<Tensor> flat = paddings.Reshaped(TensorShape({2 * rank}));
    OP_REQUIRES_OK(ctx, flat.status());
    StatusOr<std::vector<int64_t>> pads = ReadIntVector(*flat, "paddings");
    OP_REQUIRES_OK(ctx, pads.status());
    std::vector<int64_t> before(rank), out_dims(rank);
    for (int d = 0; d < rank; ++d) {
      const int64_t b = (*pads)[2 * d], a = (*pads)[2 * d + 1];
      OP_REQUIRES(ctx, b >= 0 && a >= 0,
                  errors::InvalidArgument("paddings must be >= 0, got [", b, ",", a,
                                          "] for dimension ", d));
      before[d] = b;
      const bool overflow = __builtin_add_overflow(in.dim_size(d), a, &out_dims[d]) ||
                            __builtin_add_overflow(out_dims[d], b, &out_dims[d]);
      OP_REQUIRES(ctx, !overflow, errors::InvalidArgument("padding dimension ", d, " overflows"));
    }
    StatusOr<TensorShape> out_shape = TensorShape::FromDims(out_dims);
    OP_REQUIRES_OK(ctx, out_shape.status());
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &out));
    OP_REQUIRES(ctx, VisitByElementSize(in.dtype(), [&]<typename U>() {
                  U* o = static_cast<U*>(out->raw_data());
                  std::fill(o, o + out->NumElements(), U{});
                  if (in.NumElements() == 0) return;
                  CopyInterior<U>(ctx, static_cast<const U*>(in.raw_data()),
                                  in.shape().dim_sizes(), before, out_dims, o);
                }),
                UnsupportedDtype(in.dtype()));
  }
};

REGISTER_KERNEL_BUILDER(Name("Pad").Device(DEVICE_CPU), PadOp);

}  // namespace
}  // namespace tact

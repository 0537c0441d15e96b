// Tile: repeats the input multiples[d] times along each dimension d, so
// out[i_0, ..., i_{r-1}] = in[i_0 % dim_0, ..., i_{r-1} % dim_{r-1}].
#include <algorithm>

#include "kernels/cpu/array_util.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

// Each output row (all dims but the last fixed) is the matching input row,
// repeated multiples[r-1] times.
template <typename U>
void TileRows(OpKernelContext* ctx, const U* in, const std::vector<int64_t>& in_dims,
              const std::vector<int64_t>& out_dims, U* out) {
  const int r = static_cast<int>(in_dims.size());
  if (r == 0) {
    out[0] = in[0];
    return;
  }
  const std::vector<int64_t> in_strides = RowMajorStrides(in_dims);
  const int64_t in_inner = in_dims[r - 1], out_inner = out_dims[r - 1];
  int64_t rows = 1;
  for (int d = 0; d + 1 < r; ++d) rows *= out_dims[d];
  ParallelFor(ctx, rows, out_inner * 2, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      int64_t offset = 0;
      for (int64_t rem = row, d = r - 2; d >= 0; --d) {
        offset += (rem % out_dims[d]) % in_dims[d] * in_strides[d];
        rem /= out_dims[d];
      }
      U* dst = out + row * out_inner;
      for (int64_t j = 0; j < out_inner; j += in_inner) {
        std::copy(in + offset, in + offset + in_inner, dst + j);
      }
    }
  });
}

class TileOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& m = ctx->input(1);
    const int rank = in.dims();
    OP_REQUIRES(ctx, m.dims() == 1 && m.dim_size(0) == rank,
                errors::InvalidArgument("multiples must be a vector of ", rank,
                                        " elements for input of shape ", in.shape().DebugString(),
                                        ", got shape ", m.shape().DebugString()));
    StatusOr<std::vector<int64_t>> multiples = ReadIntVector(m, "multiples");
    OP_REQUIRES_OK(ctx, multiples.status());
    std::vector<int64_t> out_dims(rank);
    for (int d = 0; d < rank; ++d) {
      const int64_t k = (*multiples)[d];
      OP_REQUIRES(ctx, k >= 0, errors::InvalidArgument("multiples must be >= 0, got ",
                                                       IntListString(*multiples)));
      OP_REQUIRES(ctx, !__builtin_mul_overflow(in.dim_size(d), k, &out_dims[d]),
                  errors::InvalidArgument("tiling dimension ", d, " overflows"));
    }
    StatusOr<TensorShape> out_shape = TensorShape::FromDims(out_dims);
    OP_REQUIRES_OK(ctx, out_shape.status());
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &out));
    if (out->NumElements() == 0) return;
    OP_REQUIRES(ctx, VisitByElementSize(in.dtype(), [&]<typename U>() {
                  TileRows<U>(ctx, static_cast<const U*>(in.raw_data()), in.shape().dim_sizes(),
                              out_dims, static_cast<U*>(out->raw_data()));
                }),
                UnsupportedDtype(in.dtype()));
  }
};

REGISTER_KERNEL_BUILDER(Name("Tile").Device(DEVICE_CPU), TileOp);

}  // namespace
}  // namespace tact

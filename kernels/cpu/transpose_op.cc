// Transpose: y[i_0, ..., i_{r-1}] = x at index i_{perm^-1}; that is, output
// dimension d is input dimension perm[d]. A matrix transpose goes through
// cache-sized tiles; any other rank is a strided copy.
#include <algorithm>

#include "kernels/cpu/array_util.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

// Tiles of kTile x kTile elements: one tile of a float matrix and its
// transpose fit in L1, so neither side of the copy misses cache per element.
constexpr int64_t kTile = 32;

template <typename U>
void Transpose2D(OpKernelContext* ctx, const U* in, int64_t rows, int64_t cols, U* out) {
  const int64_t row_tiles = (rows + kTile - 1) / kTile;
  ParallelFor(ctx, row_tiles, kTile * cols * 4, [&](int64_t begin, int64_t end) {
    for (int64_t rt = begin; rt < end; ++rt) {
      const int64_t r0 = rt * kTile, r1 = std::min(rows, r0 + kTile);
      for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
        const int64_t c1 = std::min(cols, c0 + kTile);
        for (int64_t r = r0; r < r1; ++r) {
          for (int64_t c = c0; c < c1; ++c) out[c * rows + r] = in[r * cols + c];
        }
      }
    }
  });
}

class TransposeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& perm_t = ctx->input(1);
    const int rank = x.dims();
    OP_REQUIRES(ctx, perm_t.dims() == 1,
                errors::InvalidArgument("perm must be a vector, got shape ",
                                        perm_t.shape().DebugString()));
    StatusOr<std::vector<int64_t>> perm = ReadIntVector(perm_t, "perm");
    OP_REQUIRES_OK(ctx, perm.status());
    OP_REQUIRES(ctx, static_cast<int>(perm->size()) == rank,
                errors::InvalidArgument("perm ", IntListString(*perm), " has ", perm->size(),
                                        " entries but x has shape ", x.shape().DebugString()));
    std::vector<bool> seen(rank, false);
    for (int64_t p : *perm) {
      OP_REQUIRES(ctx, p >= 0 && p < rank && !seen[p],
                  errors::InvalidArgument("perm ", IntListString(*perm),
                                          " is not a permutation of [0, ", rank, ")"));
      seen[p] = true;
    }
    std::vector<int64_t> out_dims(rank), strides(rank);
    const std::vector<int64_t> in_strides = RowMajorStrides(x.shape().dim_sizes());
    bool identity = true;
    for (int d = 0; d < rank; ++d) {
      out_dims[d] = x.dim_size((*perm)[d]);
      strides[d] = in_strides[(*perm)[d]];
      identity = identity && (*perm)[d] == d;
    }
    if (identity) {  // nothing moves: share the buffer
      ctx->set_output(0, x);
      return;
    }
    Tensor* y;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &y));
    if (y->NumElements() == 0) return;
    if (rank == 2) {
      OP_REQUIRES(ctx, VisitByElementSize(x.dtype(), [&]<typename U>() {
                    Transpose2D<U>(ctx, static_cast<const U*>(x.raw_data()), x.dim_size(0),
                                   x.dim_size(1), static_cast<U*>(y->raw_data()));
                  }),
                  UnsupportedDtype(x.dtype()));
      return;
    }
    OP_REQUIRES_OK(ctx, StridedCopy(ctx, x, 0, out_dims, strides, y));
  }
};

REGISTER_KERNEL_BUILDER(Name("Transpose").Device(DEVICE_CPU), TransposeOp);

}  // namespace
}  // namespace tact

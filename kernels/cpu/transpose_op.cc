// Transpose: output dimension d is input dimension perm[d]. The permutation
// is first reduced to the fewest dimensions that describe it; a matrix
// transpose then goes through cache-sized tiles, any other rank is a strided
// copy, and one that moves nothing shares the input's buffer.
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

// The same transpose on fewer dimensions: size-1 dimensions are dropped
// (they do not change the layout) and input dimensions that stay adjacent
// and in order under perm are merged. [2,3,4] with perm [2,0,1] becomes a
// [6,4] matrix transpose; a result of rank <= 1 moves nothing.
void Simplify(const std::vector<int64_t>& dims, const std::vector<int64_t>& perm,
              std::vector<int64_t>* new_dims, std::vector<int64_t>* new_perm) {
  const int rank = static_cast<int>(dims.size());
  std::vector<int64_t> kept_dims;
  std::vector<int> renumber(rank, -1);
  for (int d = 0; d < rank; ++d) {
    if (dims[d] == 1) continue;
    renumber[d] = static_cast<int>(kept_dims.size());
    kept_dims.push_back(dims[d]);
  }
  std::vector<int64_t> p;
  for (int64_t d : perm) {
    if (renumber[d] >= 0) p.push_back(renumber[d]);
  }
  // Runs of consecutive input dims, in output order: (first dim, length).
  std::vector<std::pair<int64_t, int64_t>> runs;
  for (size_t k = 0; k < p.size(); ++k) {
    if (k > 0 && p[k] == p[k - 1] + 1) {
      ++runs.back().second;
    } else {
      runs.emplace_back(p[k], 1);
    }
  }
  // A run's number among the merged input dims is its rank by first dim.
  std::vector<int64_t> firsts;
  for (const auto& r : runs) firsts.push_back(r.first);
  std::sort(firsts.begin(), firsts.end());
  new_dims->assign(runs.size(), 1);
  new_perm->clear();
  for (const auto& [first, len] : runs) {
    const int64_t g = std::lower_bound(firsts.begin(), firsts.end(), first) - firsts.begin();
    for (int64_t d = first; d < first + len; ++d) (*new_dims)[g] *= kept_dims[d];
    new_perm->push_back(g);
  }
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
    std::vector<int64_t> out_dims(rank);
    for (int d = 0; d < rank; ++d) out_dims[d] = x.dim_size((*perm)[d]);
    std::vector<int64_t> dims, p;
    Simplify(x.shape().dim_sizes(), *perm, &dims, &p);
    if (x.NumElements() == 0 || dims.size() <= 1) {
      // Nothing moves: the output is the input's buffer under the new shape.
      ctx->set_output(0, x.Reshaped(TensorShape(out_dims)).value());
      return;
    }
    Tensor* y;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &y));
    if (dims.size() == 2) {
      OP_REQUIRES(ctx, VisitByElementSize(x.dtype(), [&]<typename U>() {
                    Transpose2D<U>(ctx, static_cast<const U*>(x.raw_data()), dims[0], dims[1],
                                   static_cast<U*>(y->raw_data()));
                  }),
                  UnsupportedDtype(x.dtype()));
      return;
    }
    const std::vector<int64_t> in_strides = RowMajorStrides(dims);
    std::vector<int64_t> simple_out(p.size()), strides(p.size());
    for (size_t d = 0; d < p.size(); ++d) {
      simple_out[d] = dims[p[d]];
      strides[d] = in_strides[p[d]];
    }
    OP_REQUIRES_OK(ctx, StridedCopy(ctx, x, 0, simple_out, strides, y));
  }
};

REGISTER_KERNEL_BUILDER(Name("Transpose").Device(DEVICE_CPU), TransposeOp);

}  // namespace
}  // namespace tact

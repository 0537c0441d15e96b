#include "kernels/cpu/array_util.h"

#include <algorithm>

#include "kernels/cpu/kernel_util.h"

namespace tact {
namespace {

// Rough cycles to move one element: strings allocate, the rest is a load
// and a store.
template <typename U>
constexpr int64_t kMoveCost = std::is_same_v<U, std::string> ? 40 : 2;

template <typename U>
void StridedCopyTyped(OpKernelContext* ctx, const U* in, int64_t in_base,
                      const std::vector<int64_t>& dims, const std::vector<int64_t>& strides,
                      U* out) {
  const int r = static_cast<int>(dims.size());
  if (r == 0) {
    out[0] = in[in_base];
    return;
  }
  const int64_t inner = dims[r - 1];
  const int64_t inner_stride = strides[r - 1];
  int64_t rows = 1;
  for (int d = 0; d + 1 < r; ++d) rows *= dims[d];
  if (inner == 0 || rows == 0) return;
  ParallelFor(ctx, rows, inner * kMoveCost<U>, [&](int64_t begin, int64_t end) {
    // Decompose the first row into an index once, then step it like an
    // odometer: no division per row.
    std::vector<int64_t> idx(r > 1 ? r - 1 : 0);
    int64_t offset = in_base;
    for (int64_t rem = begin, d = r - 2; d >= 0; --d) {
      idx[d] = rem % dims[d];
      rem /= dims[d];
      offset += idx[d] * strides[d];
    }
    for (int64_t row = begin; row < end; ++row) {
      U* dst = out + row * inner;
      if (inner_stride == 1) {
        std::copy(in + offset, in + offset + inner, dst);
      } else {
        const U* src = in + offset;
        for (int64_t j = 0; j < inner; ++j) dst[j] = src[j * inner_stride];
      }
      for (int d = r - 2; d >= 0; --d) {
        offset += strides[d];
        if (++idx[d] < dims[d]) break;
        offset -= idx[d] * strides[d];
        idx[d] = 0;
      }
    }
  });
}

}  // namespace

Status UnsupportedDtype(DataType dtype) {
  return errors::InvalidArgument("cannot move elements of dtype ", DataTypeString(dtype));
}

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size());
  int64_t s = 1;
  for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
    strides[d] = s;
    s *= dims[d];
  }
  return strides;
}

std::string IntListString(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(v[i]);
  }
  return s + "]";
}

std::vector<int64_t> ReadIndices(const Tensor& t) {
  if (t.dtype() == DT_INT32) {
    const int32_t* p = t.data<int32_t>();
    return std::vector<int64_t>(p, p + t.NumElements());
  }
  const int64_t* p = t.data<int64_t>();
  return std::vector<int64_t>(p, p + t.NumElements());
}

std::string PositionString(int64_t flat, const TensorShape& shape) {
  std::vector<int64_t> idx(shape.dims());
  for (int d = shape.dims() - 1; d >= 0; --d) {
    idx[d] = flat % shape.dim_size(d);
    flat /= shape.dim_size(d);
  }
  return IntListString(idx);
}

StatusOr<std::vector<int64_t>> RowsOfIndexVectors(const Tensor& indices, const TensorShape& shape,
                                                  const char* what) {
  if (indices.dims() == 0) {
    return errors::InvalidArgument("indices must be at least a vector (its last dimension holds "
                                   "the coordinates), got a scalar");
  }
  const int64_t k = indices.dim_size(indices.dims() - 1);
  if (k > shape.dims()) {
    return errors::InvalidArgument("indices ", indices.shape().DebugString(), " hold ", k,
                                   " coordinates, more than ", what, " ", shape.DebugString(),
                                   " has dimensions");
  }
  const std::vector<int64_t> coords = ReadIndices(indices);
  int64_t vectors = 1;
  for (int d = 0; d + 1 < indices.dims(); ++d) vectors *= indices.dim_size(d);
  // With k = 0 each (empty) vector picks the one row, all of shape.
  std::vector<int64_t> rows(vectors, 0);
  for (int64_t i = 0; k > 0 && i < vectors; ++i) {
    int64_t row = 0;
    for (int64_t d = 0; d < k; ++d) {
      const int64_t at = i * k + d;
      const int64_t c = coords[at], limit = shape.dim_size(static_cast<int>(d));
      if (c < 0 || c >= limit) {
        return errors::InvalidArgument("indices", PositionString(at, indices.shape()), " = ", c,
                                       " is not in [0, ", limit, ") (dimension ", d, " of ", what,
                                       " ", shape.DebugString(), ")");
      }
      row = row * limit + c;
    }
    rows[i] = row;
  }
  return rows;
}

StatusOr<std::vector<int64_t>> BroadcastStrides(const TensorShape& in,
                                                const std::vector<int64_t>& target) {
  const int rank = static_cast<int>(target.size());
  bool fits = in.dims() <= rank;
  std::vector<int64_t> strides(rank, 0);
  const std::vector<int64_t> in_strides = RowMajorStrides(in.dim_sizes());
  for (int d = 0; fits && d < in.dims(); ++d) {
    const int t = rank - in.dims() + d;
    const int64_t have = in.dim_size(d), want = target[t];
    fits = have == want || have == 1;
    if (have == want && have != 1) strides[t] = in_strides[d];
  }
  if (!fits) {
    return errors::InvalidArgument("input of shape ", in.DebugString(), " cannot broadcast to ",
                                   IntListString(target));
  }
  return strides;
}

Status StridedCopy(OpKernelContext* ctx, const Tensor& in, int64_t in_base,
                   const std::vector<int64_t>& out_dims, const std::vector<int64_t>& in_strides,
                   Tensor* out) {
  if (out->NumElements() == 0) return Status::OK();
  if (!VisitByElementSize(in.dtype(), [&]<typename U>() {
        StridedCopyTyped<U>(ctx, static_cast<const U*>(in.raw_data()), in_base, out_dims,
                            in_strides, static_cast<U*>(out->raw_data()));
      })) {
    return UnsupportedDtype(in.dtype());
  }
  return Status::OK();
}

Status ConcatRows(OpKernelContext* ctx, const std::vector<const Tensor*>& inputs, int64_t outer,
                  Tensor* out) {
  if (outer == 0 || out->NumElements() == 0) return Status::OK();
  const int64_t cols = out->NumElements() / outer;
  if (!VisitByElementSize(out->dtype(), [&]<typename U>() {
        U* dst = static_cast<U*>(out->raw_data());
        std::vector<std::pair<const U*, int64_t>> srcs;  // data, row length
        for (const Tensor* t : inputs) {
          srcs.emplace_back(static_cast<const U*>(t->raw_data()), t->NumElements() / outer);
        }
        ParallelFor(ctx, outer, cols * kMoveCost<U>, [&](int64_t begin, int64_t end) {
          for (int64_t o = begin; o < end; ++o) {
            U* row = dst + o * cols;
            for (const auto& [src, n] : srcs) {
              row = std::copy(src + o * n, src + (o + 1) * n, row);
            }
          }
        });
      })) {
    return UnsupportedDtype(out->dtype());
  }
  return Status::OK();
}

Status SplitRows(OpKernelContext* ctx, const Tensor& in, int64_t outer,
                 const std::vector<Tensor*>& outs) {
  if (outer == 0 || in.NumElements() == 0) return Status::OK();
  const int64_t cols = in.NumElements() / outer;
  if (!VisitByElementSize(in.dtype(), [&]<typename U>() {
        const U* src = static_cast<const U*>(in.raw_data());
        std::vector<std::pair<U*, int64_t>> dsts;  // data, row length
        for (Tensor* t : outs) {
          dsts.emplace_back(static_cast<U*>(t->raw_data()), t->NumElements() / outer);
        }
        ParallelFor(ctx, outer, cols * kMoveCost<U>, [&](int64_t begin, int64_t end) {
          for (int64_t o = begin; o < end; ++o) {
            const U* row = src + o * cols;
            for (const auto& [dst, n] : dsts) {
              std::copy(row, row + n, dst + o * n);
              row += n;
            }
          }
        });
      })) {
    return UnsupportedDtype(in.dtype());
  }
  return Status::OK();
}

}  // namespace tact

// Helpers shared by the kernels that only move elements around (Reshape,
// Transpose, Concat, Slice, Gather, ...). Those kernels never look at an
// element's value, so they work on the element's storage: a 4-byte float and
// a 4-byte int32 move the same way. That keeps one instantiation per element
// size (plus std::string) instead of one per dtype.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/op_kernel.h"

namespace tact {

// 16 bytes (complex128) moved as one value.
struct Bytes16 {
  uint64_t lo = 0, hi = 0;
};

// Calls fn.template operator()<U>() with the storage type U of `dtype`:
// uint8_t, uint16_t, uint32_t, uint64_t, Bytes16 or std::string. Returns
// false for a dtype without storage (DT_RESOURCE, DT_INVALID).
template <typename Fn>
bool VisitByElementSize(DataType dtype, Fn&& fn) {
  if (BaseType(dtype) == DT_STRING) {
    fn.template operator()<std::string>();
    return true;
  }
  switch (DataTypeSize(BaseType(dtype))) {
    case 1: fn.template operator()<uint8_t>(); return true;
    case 2: fn.template operator()<uint16_t>(); return true;
    case 4: fn.template operator()<uint32_t>(); return true;
    case 8: fn.template operator()<uint64_t>(); return true;
    case 16: fn.template operator()<Bytes16>(); return true;
    default: return false;
  }
}

// InvalidArgument for a dtype VisitByElementSize cannot move.
Status UnsupportedDtype(DataType dtype);

// Row-major strides of `dims` (elements, not bytes).
std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims);

// "[2,-1,3]": a list of ints as a shape-like string for error messages.
std::string IntListString(const std::vector<int64_t>& v);

// The elements of an int32 or int64 tensor of indices, any shape, as int64s.
std::vector<int64_t> ReadIndices(const Tensor& t);

// "[1,2]": the multi-dimensional position of flat index `flat` in `shape`,
// for errors that name an element (an index out of range).
std::string PositionString(int64_t flat, const TensorShape& shape);

// For GatherNd and ScatterNd: `indices` [..., k] (int32 or int64) hold
// vectors of k coordinates into the first k dimensions of `shape`. Returns
// the row each vector picks of `shape` viewed as [prod(shape[:k]),
// prod(shape[k:])]. InvalidArgument for indices of rank 0, for k above
// shape's rank (naming both shapes) and for a coordinate out of range
// (naming its position and value, and `what` the shape is).
StatusOr<std::vector<int64_t>> RowsOfIndexVectors(const Tensor& indices, const TensorShape& shape,
                                                  const char* what);

// out (viewed as `out_dims`, which must hold out->NumElements() elements)
// gets, at index (i_0, ..., i_{r-1}), the element of `in` at flat offset
// in_base + sum_d i_d * in_strides[d]. Strides may be negative or zero.
// Every such offset must lie inside `in`; the caller checks the ranges.
// Transpose, Slice and StridedSlice are this copy with different strides.
Status StridedCopy(OpKernelContext* ctx, const Tensor& in, int64_t in_base,
                   const std::vector<int64_t>& out_dims, const std::vector<int64_t>& in_strides,
                   Tensor* out);

// The strides (per dimension of `target`) that StridedCopy needs to
// broadcast a tensor of shape `in` to `target` by NumPy's rules (right-
// aligned; each dimension of in is target's or 1): 0 where it repeats.
// InvalidArgument naming both shapes if `in` cannot broadcast to target.
StatusOr<std::vector<int64_t>> BroadcastStrides(const TensorShape& in,
                                                const std::vector<int64_t>& target);

// Views every input i as a matrix [outer, inner_i] and out as
// [outer, sum inner_i], and fills each row of out with the inputs' rows side
// by side (Concat along an axis, Pack).
Status ConcatRows(OpKernelContext* ctx, const std::vector<const Tensor*>& inputs, int64_t outer,
                  Tensor* out);
// The inverse: in is [outer, sum inner_i], each out i is [outer, inner_i]
// (Split, Unpack). The outputs must be allocated already.
Status SplitRows(OpKernelContext* ctx, const Tensor& in, int64_t outer,
                 const std::vector<Tensor*>& outs);

}  // namespace tact

// Builder functions for the array ops: ops that reshape, reorder, cut,
// join and index tensors without computing on their elements. All take
// tensors of any dtype (strings and bools too). Index-like inputs (shape,
// perm, axis, begin, ...) are int32 or int64 tensors; a braced list of ints
// becomes an int32 Const:
//
//   auto x = Placeholder(s, DT_FLOAT, {2, 3});
//   auto y = Reshape(s, Transpose(s, x, {1, 0}), {-1});   // [6]
//   auto parts = Split(s, 0, y, 3);                        // 3 x [2]
#pragma once

#include <vector>

#include "graph/op_builder.h"

namespace tact {

// `shape` may hold one -1, inferred from the element count. Shares the
// input's buffer.
Output Reshape(const Scope& scope, Input tensor, Input shape);
// Inserts a dimension of size 1 at `dim` in [-rank-1, rank].
Output ExpandDims(const Scope& scope, Input input, Input dim);
// Removes the listed dimensions (which must have size 1), or every size-1
// dimension if `squeeze_dims` is empty.
Output Squeeze(const Scope& scope, Input input, std::vector<int64_t> squeeze_dims = {});
// Output dimension d is input dimension perm[d].
Output Transpose(const Scope& scope, Input x, Input perm);
// Joins `values` (at least 2) along `axis`; builds a ConcatV2 node.
Output Concat(const Scope& scope, const std::vector<Input>& values, Input axis);
// `num_split` equal pieces of `value` along `axis` (a scalar int32).
std::vector<Output> Split(const Scope& scope, Input axis, Input value, int64_t num_split);
// The block at `begin` of extent `size` (-1: to the end of the dimension).
Output Slice(const Scope& scope, Input input, Input begin, Input size);
// NumPy-style basic indexing; the masks are TensorFlow's (see
// graph/strided_slice_spec.h for their meaning).
Output StridedSlice(const Scope& scope, Input input, Input begin, Input end, Input strides,
                    int64_t begin_mask = 0, int64_t end_mask = 0, int64_t ellipsis_mask = 0,
                    int64_t new_axis_mask = 0, int64_t shrink_axis_mask = 0);
// Zero padding; `paddings` is [rank, 2]: before and after each dimension.
Output Pad(const Scope& scope, Input input, Input paddings);
// Repeats `input` multiples[d] times along each dimension d.
Output Tile(const Scope& scope, Input input, Input multiples);
// `tensor` with the order of its elements reversed along each of `axis`'s
// dimensions (a vector; negative ones count from the end).
Output ReverseV2(const Scope& scope, Input tensor, Input axis);
// `input` repeated, as NumPy broadcasting would, to `shape` (a vector).
Output BroadcastTo(const Scope& scope, Input input, Input shape);
// Rows of `params` (along axis 0) picked by `indices`; the output shape is
// indices.shape + params.shape[1:].
Output Gather(const Scope& scope, Input params, Input indices, bool validate_indices = true);
// The same along dimension `axis` (a scalar; negative counts from the end),
// as tf.gather emits it: the output shape is params.shape[:axis] +
// indices.shape + params.shape[axis + 1:]. TensorFlow's batch_dims attr is
// declared for its graphs; only 0 is supported (any other is an error
// naming the node).
Output GatherV2(const Scope& scope, Input params, Input indices, Input axis);
// The distinct elements of the vector x in the order they first appear (y),
// and for each element of x its position in y (idx, of out_idx: int32 or
// int64), so that x[i] == y[idx[i]]: {y, idx}.
std::vector<Output> Unique(const Scope& scope, Input x, DataType out_idx = DT_INT32);
// Stacks tensors of one shape along a new dimension `axis`.
Output Pack(const Scope& scope, const std::vector<Input>& values, int64_t axis = 0);
// The `num` tensors along dimension `axis` of `value`.
std::vector<Output> Unpack(const Scope& scope, Input value, int64_t num, int64_t axis = 0);
// The shape of `input` as a vector of out_type (int32 or int64).
Output Shape(const Scope& scope, Input input, DataType out_type = DT_INT32);
// The element count of `input` as a scalar of out_type.
Output Size(const Scope& scope, Input input, DataType out_type = DT_INT32);
// The rank of `input` as an int32 scalar.
Output Rank(const Scope& scope, Input input);

}  // namespace tact

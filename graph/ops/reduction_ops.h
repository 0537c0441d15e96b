// Builder functions for reductions (Sum, Mean, Max, Min, Prod, and All and
// Any of bools), UnsortedSegmentSum, and ArgMax / ArgMin, with TensorFlow's
// names, inputs and attrs.
//
//   auto total = Sum(s, x, {0, 1});              // every element, shape []
//   auto row_max = Max(s, x, -1, /*keep_dims=*/true);
//   auto label = ArgMax(s, logits, 1);           // int64 indices
//
// `axis` (the op's reduction_indices) is an int32 or int64 scalar or vector;
// negative values count from the end; an empty vector reduces nothing (the
// output is the input). An axis out of range or named twice is an error.
// Reducing over a dimension of size 0 gives the reduction's identity: 0 for
// Sum, 1 for Prod, the lowest value (-inf for floats) for Max, the highest
// (+inf) for Min, true for All and false for Any; Mean gives NaN for floats
// and 0 for integers.
//
// The kernels reduce in a fixed order that depends only on the shapes, so
// results are bit-identical for any number of threads.
#pragma once

#include "graph/op_builder.h"

namespace tact {

Output Sum(const Scope& scope, Input input, Input axis, bool keep_dims = false);
Output Mean(const Scope& scope, Input input, Input axis, bool keep_dims = false);
Output Max(const Scope& scope, Input input, Input axis, bool keep_dims = false);
Output Min(const Scope& scope, Input input, Input axis, bool keep_dims = false);
Output Prod(const Scope& scope, Input input, Input axis, bool keep_dims = false);
Output All(const Scope& scope, Input input, Input axis, bool keep_dims = false);  // logical and
Output Any(const Scope& scope, Input input, Input axis, bool keep_dims = false);  // logical or

// output[k, ...] = the sum of data[i..., ...] over the positions i of
// segment_ids (an int32/int64 tensor whose shape begins data's) that hold
// k; [num_segments] followed by the rest of data's shape. A segment no id
// names is 0; a negative id drops its row (TensorFlow's rule); an id at or
// past num_segments is an InvalidArgument naming its position. Rows add in
// the order of their positions, on any number of threads. Gather's
// gradient: the rows of an embedding that a step picked.
Output UnsortedSegmentSum(const Scope& scope, Input data, Input segment_ids, Input num_segments);

// The index of the largest (smallest) value along the scalar `dimension`;
// the first such index on ties. The output drops that dimension and has
// type `output_type` (int32 or int64). The dimension must not be empty.
Output ArgMax(const Scope& scope, Input input, Input dimension, DataType output_type = DT_INT64);
Output ArgMin(const Scope& scope, Input input, Input dimension, DataType output_type = DT_INT64);

}  // namespace tact

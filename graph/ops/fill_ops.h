// Builder functions for ops that make tensors from scalars: Fill,
// ZerosLike, OnesLike, Range and OneHot (TensorFlow's names, inputs and
// attrs).
//
//   auto z = Fill(s, {2, 3}, 0.0f);            // float [2,3] of zeros
//   auto r = Range(s, 0, 10, 3);               // int32 [0,3,6,9]
//   auto y = OneHot(s, labels, 10, 1.0f, 0.0f); // [batch, 10]
#pragma once

#include "graph/op_builder.h"

namespace tact {

// A tensor of shape `dims` (an int32 or int64 vector, no negative entries)
// with every element equal to the scalar `value`.
Output Fill(const Scope& scope, Input dims, Input value);
Output ZerosLike(const Scope& scope, Input x);
Output OnesLike(const Scope& scope, Input x);

// [start, start + delta, ...) up to but excluding `limit`, all three
// scalars of one type. delta = 0, or a delta whose sign walks away from
// limit, is an error.
Output Range(const Scope& scope, Input start, Input limit, Input delta);

// Output[..., j, ...] = on_value where indices[...] == j, else off_value,
// with the new dimension of size `depth` at `axis` (-1: last). An index
// outside [0, depth) gives a row of off_value, as in TensorFlow.
Output OneHot(const Scope& scope, Input indices, Input depth, Input on_value, Input off_value,
              int64_t axis = -1);

// The number of elements of Range(start, limit, delta), shared by the
// kernel and the shape function so both agree; InvalidArgument for
// delta = 0, a wrong-signed delta, or a size that is not finite.
StatusOr<int64_t> RangeSize(int64_t start, int64_t limit, int64_t delta);
StatusOr<int64_t> RangeSize(double start, double limit, double delta);

}  // namespace tact

// Builder functions for batches of matrices (TensorFlow's tf.linalg): ops
// on the last two dimensions of a tensor, the ones before them a batch.
//
//   auto causal = MatrixBandPart(s, ones, -1, 0);   // lower triangle: an attention mask
#pragma once

#include "graph/op_builder.h"

namespace tact {

// Each matrix of `input` (rank >= 2) with its elements outside a band set
// to zero: element (i, j) stays where (num_lower < 0 or i - j <= num_lower)
// and (num_upper < 0 or j - i <= num_upper). A negative bound keeps that
// whole triangle: (-1, 0) is the lower triangle, (0, 0) the diagonal.
// Bounds are int64 scalars (int32 too) no larger than the matrices'
// row and column counts. Any dtype.
Output MatrixBandPart(const Scope& scope, Input input, Input num_lower, Input num_upper);

}  // namespace tact

// Builder functions for batches of matrices (TensorFlow's tf.linalg): ops
// on the last two dimensions of a tensor, the ones before them a batch.
//
//   auto causal = MatrixBandPart(s, ones, -1, 0);   // lower triangle: an attention mask
//   auto scores = Einsum(s, "bhqd,bhkd->bhqk", {q, k});
#pragma once

#include <string>
#include <vector>

#include "graph/op_builder.h"

namespace tact {

// Each matrix of `input` (rank >= 2) with its elements outside a band set
// to zero: element (i, j) stays where (num_lower < 0 or i - j <= num_lower)
// and (num_upper < 0 or j - i <= num_upper). A negative bound keeps that
// whole triangle: (-1, 0) is the lower triangle, (0, 0) the diagonal.
// Bounds are int64 scalars (int32 too) no larger than the matrices'
// row and column counts. Any dtype.
Output MatrixBandPart(const Scope& scope, Input input, Input num_lower, Input num_upper);

// tf.einsum: the sum of products that `equation` names
// (graph/ops/einsum_equation.h says how it reads). The Einsum op takes one
// or two operands, as TensorFlow's does; with more, this builds a chain of
// two-operand Einsums, left to right, each keeping the labels that a later
// operand or the output still needs. Two operands contract as one batched
// matrix product, without copies where their layouts allow (the attention
// products "bhqd,bhkd->bhqk" and "bhqk,bhkd->bhqd", and "...d,de->...e").
// half, bfloat16, float, double, int32, int64, complex64, complex128.
Output Einsum(const Scope& scope, const std::string& equation, const std::vector<Input>& inputs);

}  // namespace tact

// Builder functions for matrix products: MatMul (paper Figure 1's
// `tf.matmul(W, x)`) and BatchMatMul (a stack of products whose batch
// dimensions broadcast, TensorFlow's BatchMatMulV2 semantics under the
// BatchMatMul name).
#pragma once

#include "graph/op_builder.h"

namespace tact {

// a [m, k] (or [k, m] with transpose_a) times b [k, n] (or [n, k]) -> [m, n].
Output MatMul(const Scope& s, Input a, Input b, bool transpose_a = false,
              bool transpose_b = false);
// x [..., m, k] times y [..., k, n] -> [..., m, n]; the leading dims
// broadcast. adj_x / adj_y transpose the last two dims (no conjugation:
// only real types are supported).
Output BatchMatMul(const Scope& s, Input x, Input y, bool adj_x = false, bool adj_y = false);

}  // namespace tact

// Multi-head attention as tf.keras.layers.MultiHeadAttention computes it
// (Vaswani et al. 2017), built from Einsum, Softmax and MatrixBandPart:
//
//   auto h = MultiHeadAttention(s, x, x, /*num_heads=*/4, /*key_dim=*/16,
//                               /*causal=*/true, /*seed=*/1);   // self-attention
//
// query [B, T, D] attends over value [B, S, Dv] (which is the key too):
//   q = query . Wq + bq, k = value . Wk + bk, v = value . Wv + bv   [B, *, N, H]
//   scores = q . k / sqrt(H)                                         [B, N, T, S]
//   (causal: position t sees s <= t only; the rest get -1e9 before the
//    softmax, as Keras's masked softmax does)
//   y = softmax(scores) . v . Wo + bo                                [B, T, D]
// Variables under "multi_head_attention/": query, key and value, each a
// kernel [D or Dv, N, H] and a bias [N, H], and attention_output, a kernel
// [N, H, D] and a bias [D]; kernels Glorot-uniform from `seed`, biases
// zeros. The last dimensions of query and value must be known.
#pragma once

#include "graph/op_builder.h"

namespace tact {

Output MultiHeadAttention(const Scope& scope, Output query, Output value, int64_t num_heads,
                          int64_t key_dim, bool causal = false, int64_t seed = 0);

}  // namespace tact

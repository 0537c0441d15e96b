#include "graph/nn/attention.h"

#include <cmath>
#include <string>

#include "graph/nn/initializers.h"
#include "graph/nn/variables.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {

// The known last dimension of x, or -1 after recording an error.
int64_t LastDim(const Scope& s, const Output& x, const char* what) {
  if (!x.ok()) return -1;
  const PartialTensorShape shape = x.node->output_shape(x.index);
  if (shape.dims() != 3 || shape.dim_size(2) < 0) {
    s.UpdateStatus(errors::InvalidArgument("multi_head_attention: ", what, " '", x.name(),
                                           "' must be [batch, length, depth] with a known depth, "
                                           "has shape ", shape.DebugString()));
    return -1;
  }
  return shape.dim_size(2);
}

// x [B, L, depth] projected to [B, L, N, H] under `name`.
Output Project(const Scope& scope, const std::string& name, Output x, int64_t depth,
               int64_t heads, int64_t key_dim, int64_t seed) {
  Scope s = scope.NewSubScope(name);
  const DataType dtype = BaseType(x.type());
  Output kernel = VariableWithInit(s, "kernel", TensorShape({depth, heads, key_dim}),
                                   GlorotUniformInit(seed), dtype);
  Output bias = VariableWithInit(s, "bias", TensorShape({heads, key_dim}), ZerosInit(), dtype);
  return Add(s, Einsum(s, "bld,dnh->blnh", {x, kernel}), bias);
}

}  // namespace

Output MultiHeadAttention(const Scope& scope, Output query, Output value, int64_t num_heads,
                          int64_t key_dim, bool causal, int64_t seed) {
  Scope s = scope.NewSubScope("multi_head_attention");
  const int64_t depth = LastDim(s, query, "query");
  const int64_t value_depth = LastDim(s, value, "value");
  if (depth < 0 || value_depth < 0 || !s.ok()) return Output();
  if (num_heads < 1 || key_dim < 1) {
    s.UpdateStatus(errors::InvalidArgument("multi_head_attention: num_heads (", num_heads,
                                           ") and key_dim (", key_dim, ") must be >= 1"));
    return Output();
  }
  const DataType dtype = BaseType(query.type());
  // Each projection its own seed, so that no two kernels start equal.
  Output q = Project(s, "query", query, depth, num_heads, key_dim, seed);
  Output k = Project(s, "key", value, value_depth, num_heads, key_dim, seed + 1);
  Output v = Project(s, "value", value, value_depth, num_heads, key_dim, seed + 2);
  q = Mul(s, q, Cast(s, 1.0 / std::sqrt(static_cast<double>(key_dim)), dtype));
  Output scores = Einsum(s, "bsnh,btnh->bnts", {k, q});
  if (causal) {
    // 1 where t >= s (the lower triangle of each [T, S] matrix), else 0.
    Output visible = MatrixBandPart(s, OnesLike(s, scores), Tensor::Scalar<int64_t>(-1),
                                    Tensor::Scalar<int64_t>(0));
    scores = Add(s, scores, Mul(s, Sub(s, Cast(s, 1.0, dtype), visible), Cast(s, -1e9, dtype)));
  }
  Output attended = Einsum(s, "bnts,bsnh->btnh", {Softmax(s, scores), v});
  Scope o = s.NewSubScope("attention_output");
  Output kernel = VariableWithInit(o, "kernel", TensorShape({num_heads, key_dim, depth}),
                                   GlorotUniformInit(seed + 3), dtype);
  Output bias = VariableWithInit(o, "bias", TensorShape({depth}), ZerosInit(), dtype);
  return Add(o, Einsum(o, "btnh,nhd->btd", {attended, kernel}), bias);
}

}  // namespace tact

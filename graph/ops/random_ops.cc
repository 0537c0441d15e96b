#include "graph/ops/random_ops.h"

#include <vector>

#include "graph/op_registry.h"

namespace tact {
namespace {

Status RandomShape(InferenceContext* c) { return shape_fn::ShapeFromInput(c, 0, 0, "shape"); }

#define TACT_REGISTER_RANDOM_OP(NAME)                                                    \
  REGISTER_OP(NAME)                                                                      \
      .Input("shape: T").Output("output: dtype").Attr("seed: int = 0")                   \
      .Attr("seed2: int = 0").Attr("dtype: {half, bfloat16, float, double}")             \
      .Attr("T: {int32, int64}").SetIsStateful().SetShapeFn(RandomShape)

TACT_REGISTER_RANDOM_OP("RandomUniform");
TACT_REGISTER_RANDOM_OP("RandomStandardNormal");
TACT_REGISTER_RANDOM_OP("TruncatedNormal");
#undef TACT_REGISTER_RANDOM_OP

// The seed must be a vector of two where its shape is known.
Status StatelessShape(InferenceContext* c) {
  const PartialTensorShape& seed = c->input(1);
  if (seed.dims() >= 0 && !seed.IsCompatibleWith(TensorShape({2}))) {
    return errors::InvalidArgument("seed must be a vector of 2 elements, got shape ", seed.DebugString());
  }
  return RandomShape(c);
}

// Not stateful: the same inputs give the same tensor, so these may be
// folded and shared like any pure op.
#define TACT_REGISTER_STATELESS_OP(NAME)                                                 \
  REGISTER_OP(NAME)                                                                      \
      .Input("shape: T").Input("seed: Tseed").Output("output: dtype")                    \
      .Attr("dtype: {half, bfloat16, float, double} = DT_FLOAT").Attr("T: {int32, int64}") \
      .Attr("Tseed: {int32, int64}").SetShapeFn(StatelessShape)

TACT_REGISTER_STATELESS_OP("StatelessRandomUniform");
TACT_REGISTER_STATELESS_OP("StatelessRandomNormal");
TACT_REGISTER_STATELESS_OP("StatelessTruncatedNormal");
#undef TACT_REGISTER_STATELESS_OP

Output RandomOp(const Scope& scope, const char* op, Input shape, DataType dtype, int64_t seed,
                int64_t seed2) {
  return OpBuilder(scope, op).Input(shape).Attr("dtype", dtype).Attr("seed", seed)
      .Attr("seed2", seed2).FinalizeOutput();
}

Output StatelessOp(const Scope& scope, const char* op, Input shape, Input seed, DataType dtype) {
  return OpBuilder(scope, op).Input(shape).Input(seed).Attr("dtype", dtype).FinalizeOutput();
}

}  // namespace

Output StatelessRandomUniform(const Scope& scope, Input shape, Input seed, DataType dtype) {
  return StatelessOp(scope, "StatelessRandomUniform", shape, seed, dtype);
}
Output StatelessRandomNormal(const Scope& scope, Input shape, Input seed, DataType dtype) {
  return StatelessOp(scope, "StatelessRandomNormal", shape, seed, dtype);
}
Output StatelessTruncatedNormal(const Scope& scope, Input shape, Input seed, DataType dtype) {
  return StatelessOp(scope, "StatelessTruncatedNormal", shape, seed, dtype);
}

Output RandomUniform(const Scope& scope, Input shape, DataType dtype, int64_t seed,
                     int64_t seed2) {
  return RandomOp(scope, "RandomUniform", shape, dtype, seed, seed2);
}
Output RandomStandardNormal(const Scope& scope, Input shape, DataType dtype, int64_t seed,
                            int64_t seed2) {
  return RandomOp(scope, "RandomStandardNormal", shape, dtype, seed, seed2);
}
Output TruncatedNormal(const Scope& scope, Input shape, DataType dtype, int64_t seed,
                       int64_t seed2) {
  return RandomOp(scope, "TruncatedNormal", shape, dtype, seed, seed2);
}

}  // namespace tact

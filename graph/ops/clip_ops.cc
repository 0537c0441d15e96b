#include "graph/ops/clip_ops.h"

#include "graph/op_registry.h"

namespace tact {
namespace {

// Output t's shape; each bound a scalar or of t's shape (where known).
Status ClipByValueShape(InferenceContext* c) {
  const PartialTensorShape& t = c->input(0);
  for (int i : {1, 2}) {
    const PartialTensorShape& b = c->input(i);
    if (b.unknown_rank() || b.dims() == 0 || b.IsCompatibleWith(t)) continue;
    return errors::InvalidArgument(i == 1 ? "clip_value_min" : "clip_value_max", " must be a ",
                                   "scalar or of t's shape ", t.DebugString(), ", got ",
                                   b.DebugString());
  }
  c->set_output(0, t);
  return Status::OK();
}

}  // namespace

REGISTER_OP("ClipByValue").Input("t: T").Input("clip_value_min: T").Input("clip_value_max: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double, int32, int64, uint8, int8, int16}")
    .SetShapeFn(ClipByValueShape);

Output ClipByValue(const Scope& scope, Input t, Input clip_value_min, Input clip_value_max) {
  return OpBuilder(scope, "ClipByValue").Input(t).Input(clip_value_min).Input(clip_value_max)
      .FinalizeOutput();
}

}  // namespace tact

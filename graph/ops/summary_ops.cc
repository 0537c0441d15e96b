#include "graph/ops/summary_ops.h"

#include "graph/op_registry.h"

namespace tact {

// TensorFlow's realnumbertypes that tact computes in.
#define TACT_SUMMARY_TYPES "{float, double, half, bfloat16, int8, int16, int32, int64, uint8, uint16}"

REGISTER_OP("ScalarSummary").Input("tags: string").Input("values: T").Output("summary: string")
    .Attr("T: " TACT_SUMMARY_TYPES).SetShapeFn(shape_fn::ScalarShape);
REGISTER_OP("HistogramSummary").Input("tag: string").Input("values: T").Output("summary: string")
    .Attr("T: " TACT_SUMMARY_TYPES " = DT_FLOAT").SetShapeFn(shape_fn::ScalarShape);
REGISTER_OP("MergeSummary").Input("inputs: N * string").Output("summary: string").Attr("N: int >= 1")
    .SetShapeFn(shape_fn::ScalarShape);

#undef TACT_SUMMARY_TYPES

Output ScalarSummary(const Scope& scope, Input tags, Input values) {
  return OpBuilder(scope, "ScalarSummary").Input(tags).Input(values).FinalizeOutput();
}

Output HistogramSummary(const Scope& scope, Input tag, Input values) {
  return OpBuilder(scope, "HistogramSummary").Input(tag).Input(values).FinalizeOutput();
}

Output MergeSummary(const Scope& scope, const std::vector<Input>& inputs) {
  return OpBuilder(scope, "MergeSummary").InputList(inputs).FinalizeOutput();
}

}  // namespace tact

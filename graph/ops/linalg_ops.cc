#include "graph/ops/linalg_ops.h"

#include "graph/op_registry.h"

namespace tact {
namespace {

Status MatrixBandPartShape(InferenceContext* c) {
  const PartialTensorShape& in = c->input(0);
  if (!in.unknown_rank() && in.dims() < 2) {
    return errors::InvalidArgument("input must be at least a matrix, got shape ", in.DebugString());
  }
  for (int i : {1, 2}) {
    if (!c->input(i).unknown_rank() && c->input(i).dims() != 0) {
      return errors::InvalidArgument(i == 1 ? "num_lower" : "num_upper", " must be a scalar, got ",
                                     "shape ", c->input(i).DebugString());
    }
  }
  c->set_output(0, in);
  return Status::OK();
}

}  // namespace

REGISTER_OP("MatrixBandPart").Input("input: T").Input("num_lower: Tindex")
    .Input("num_upper: Tindex").Output("band: T").Attr("T: type")
    .Attr("Tindex: {int32, int64} = int64").SetShapeFn(MatrixBandPartShape);

Output MatrixBandPart(const Scope& scope, Input input, Input num_lower, Input num_upper) {
  return OpBuilder(scope, "MatrixBandPart").Input(input).Input(num_lower).Input(num_upper)
      .FinalizeOutput();
}

}  // namespace tact

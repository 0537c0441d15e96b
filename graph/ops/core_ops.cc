#include "graph/ops/core_ops.h"

#include "graph/op_registry.h"

namespace tact {
namespace {

Status ConstShape(InferenceContext* c) {
  Tensor value;
  TACT_RETURN_IF_ERROR(c->GetAttr("value", &value));
  DataType dtype;
  TACT_RETURN_IF_ERROR(c->GetAttr("dtype", &dtype));
  if (value.dtype() != dtype) {
    return errors::InvalidArgument("attr 'value' is ", DataTypeString(value.dtype()),
                                   " but 'dtype' is ", DataTypeString(dtype));
  }
  c->set_output(0, value.shape());
  return Status::OK();
}

Status PlaceholderShape(InferenceContext* c) {
  PartialTensorShape shape;
  TACT_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  c->set_output(0, shape);
  return Status::OK();
}

}  // namespace

REGISTER_OP("Const").Output("output: dtype").Attr("value: tensor").Attr("dtype: type")
    .SetShapeFn(ConstShape);
REGISTER_OP("Placeholder").Output("output: dtype").Attr("dtype: type")
    .Attr("shape: shape = <unknown>").SetShapeFn(PlaceholderShape);
REGISTER_OP("Identity").Input("input: T").Output("output: T").Attr("T: type")
    .SetShapeFn(shape_fn::UnchangedShape);
REGISTER_OP("StopGradient").Input("input: T").Output("output: T").Attr("T: type")
    .SetShapeFn(shape_fn::UnchangedShape);
REGISTER_OP("NoOp");

Output Placeholder(const Scope& scope, DataType dtype, const PartialTensorShape& shape) {
  return OpBuilder(scope, "Placeholder")
      .Attr("dtype", dtype)
      .Attr("shape", AttrValue::Shape(shape))
      .FinalizeOutput();
}

Output Identity(const Scope& scope, Input x) {
  return OpBuilder(scope, "Identity").Input(x).FinalizeOutput();
}

Node* NoOp(const Scope& scope) { return OpBuilder(scope, "NoOp").Finalize(); }

Output StopGradient(const Scope& scope, Input x) {
  return OpBuilder(scope, "StopGradient").Input(x).FinalizeOutput();
}

}  // namespace tact

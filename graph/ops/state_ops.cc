#include "graph/ops/state_ops.h"

#include "graph/op_registry.h"

namespace tact {
namespace {

Status VariableShape(InferenceContext* c) {
  PartialTensorShape shape;
  TACT_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  c->set_output(0, shape);
  return Status::OK();
}

}  // namespace

REGISTER_OP("Variable").Output("ref: Ref(dtype)").Attr("shape: shape").Attr("dtype: type")
    .Attr("container: string = ''").Attr("shared_name: string = ''")
    .SetIsStateful().SetShapeFn(VariableShape);
REGISTER_OP("Assign").Input("ref: Ref(T)").Input("value: T").Output("output_ref: Ref(T)")
    .Attr("T: type").Attr("validate_shape: bool = true").Attr("use_locking: bool = true")
    .SetShapeFn([](InferenceContext* c) {
      c->set_output(0, c->input(1));
      return Status::OK();
    });
REGISTER_OP("AssignAdd").Input("ref: Ref(T)").Input("value: T").Output("output_ref: Ref(T)")
    .Attr("T: {float, double, int32, int64, half, bfloat16, complex64, complex128}")
    .Attr("use_locking: bool = false").SetShapeFn(shape_fn::UnchangedShape);
REGISTER_OP("AssignSub").Input("ref: Ref(T)").Input("value: T").Output("output_ref: Ref(T)")
    .Attr("T: {float, double, int32, int64, half, bfloat16, complex64, complex128}")
    .Attr("use_locking: bool = false").SetShapeFn(shape_fn::UnchangedShape);
// TensorFlow's Scatter ops: rows of ref picked by indices (any shape) take
// updates (indices.shape + ref.shape[1:]).
#define TACT_SCATTER_OP(name, types)                                                          \
  REGISTER_OP(name).Input("ref: Ref(T)").Input("indices: Tindices").Input("updates: T")       \
      .Output("output_ref: Ref(T)").Attr("T: " types).Attr("Tindices: {int32, int64}")         \
      .Attr("use_locking: bool = false").SetShapeFn([](InferenceContext* c) {                  \
        TACT_RETURN_IF_ERROR(shape_fn::CheckSlices(c, 0, 1, 2));                               \
        c->set_output(0, c->input(0));                                                         \
        return Status::OK();                                                                   \
      })
TACT_SCATTER_OP("ScatterAdd", "{float, double, int32, int64, half, bfloat16, complex64, complex128}");
TACT_SCATTER_OP("ScatterSub", "{float, double, int32, int64, half, bfloat16, complex64, complex128}");
TACT_SCATTER_OP("ScatterUpdate", "type");
#undef TACT_SCATTER_OP
REGISTER_OP("IsVariableInitialized").Input("ref: Ref(dtype)").Output("is_initialized: bool")
    .Attr("dtype: type").SetShapeFn(shape_fn::ScalarShape);
REGISTER_OP("ResetContainer").Output("dropped: int64").Attr("container: string")
    .SetIsStateful().SetShapeFn(shape_fn::ScalarShape);

Output Variable(const Scope& scope, const PartialTensorShape& shape, DataType dtype,
                const std::string& container, const std::string& shared_name) {
  return OpBuilder(scope, "Variable")
      .Attr("shape", AttrValue::Shape(shape))
      .Attr("dtype", dtype)
      .Attr("container", container)
      .Attr("shared_name", shared_name)
      .FinalizeOutput();
}

Output Assign(const Scope& scope, Input ref, Input value, bool validate_shape, bool use_locking) {
  return OpBuilder(scope, "Assign").Input(ref).Input(value)
      .Attr("validate_shape", validate_shape).Attr("use_locking", use_locking).FinalizeOutput();
}

Output AssignAdd(const Scope& scope, Input ref, Input value, bool use_locking) {
  return OpBuilder(scope, "AssignAdd").Input(ref).Input(value)
      .Attr("use_locking", use_locking).FinalizeOutput();
}

Output AssignSub(const Scope& scope, Input ref, Input value, bool use_locking) {
  return OpBuilder(scope, "AssignSub").Input(ref).Input(value)
      .Attr("use_locking", use_locking).FinalizeOutput();
}

Output ScatterAdd(const Scope& scope, Input ref, Input indices, Input updates, bool use_locking) {
  return OpBuilder(scope, "ScatterAdd").Input(ref).Input(indices).Input(updates)
      .Attr("use_locking", use_locking).FinalizeOutput();
}

Output ScatterSub(const Scope& scope, Input ref, Input indices, Input updates, bool use_locking) {
  return OpBuilder(scope, "ScatterSub").Input(ref).Input(indices).Input(updates)
      .Attr("use_locking", use_locking).FinalizeOutput();
}

Output ScatterUpdate(const Scope& scope, Input ref, Input indices, Input updates,
                     bool use_locking) {
  return OpBuilder(scope, "ScatterUpdate").Input(ref).Input(indices).Input(updates)
      .Attr("use_locking", use_locking).FinalizeOutput();
}

Output IsVariableInitialized(const Scope& scope, Input ref) {
  return OpBuilder(scope, "IsVariableInitialized").Input(ref).FinalizeOutput();
}

Output ResetContainer(const Scope& scope, const std::string& container) {
  return OpBuilder(scope, "ResetContainer").Attr("container", container).FinalizeOutput();
}

}  // namespace tact

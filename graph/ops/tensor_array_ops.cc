#include "graph/ops/tensor_array_ops.h"

#include "graph/op_registry.h"

namespace tact {

REGISTER_OP("TensorArray").Input("size: int32").Output("handle: Ref(string)").Output("flow: int32")
    .Attr("dtype: type").SetIsStateful().SetShapeFn(shape_fn::ScalarShape);
REGISTER_OP("TensorArrayWrite").Input("handle: Ref(string)").Input("index: int32").Input("value: T")
    .Input("flow_in: int32").Output("flow_out: int32").Attr("T: type").SetIsStateful()
    .SetShapeFn(shape_fn::ScalarShape);
REGISTER_OP("TensorArrayRead").Input("handle: Ref(string)").Input("index: int32")
    .Input("flow_in: int32").Output("value: dtype").Attr("dtype: type").SetIsStateful()
    .SetShapeFn(shape_fn::Unknown);

TensorArrayOutputs TensorArray(const Scope& scope, Input size, DataType dtype) {
  Node* n = OpBuilder(scope, "TensorArray").Input(size).Attr("dtype", dtype).Finalize();
  if (n == nullptr) return {};
  return {Output(n, 0), Output(n, 1)};
}

Output TensorArrayWrite(const Scope& scope, Input handle, Input index, Input value, Input flow_in) {
  return OpBuilder(scope, "TensorArrayWrite").Input(handle).Input(index).Input(value).Input(flow_in)
      .FinalizeOutput();
}

Output TensorArrayRead(const Scope& scope, Input handle, Input index, Input flow_in, DataType dtype) {
  return OpBuilder(scope, "TensorArrayRead").Input(handle).Input(index).Input(flow_in)
      .Attr("dtype", dtype).FinalizeOutput();
}

}  // namespace tact

#include "graph/ops/data_flow_ops.h"

#include "graph/op_registry.h"

namespace tact {

// The queue's handle is a string ref, as TensorFlow's v1 queues have it: a
// ref edge keeps the ops that use the queue on its device.
REGISTER_OP("FIFOQueue").Output("handle: Ref(string)").Attr("component_types: list(type)")
    .Attr("shapes: list(shape) = []").Attr("capacity: int = -1").Attr("container: string = ''")
    .Attr("shared_name: string = ''").SetIsStateful().SetShapeFn(shape_fn::ScalarShape);
REGISTER_OP("QueueEnqueue").Input("handle: Ref(string)").Input("components: Tcomponents")
    .Attr("Tcomponents: list(type)").SetIsStateful();
REGISTER_OP("QueueDequeue").Input("handle: Ref(string)").Output("components: component_types")
    .Attr("component_types: list(type)").SetIsStateful().SetShapeFn(shape_fn::Unknown);
REGISTER_OP("QueueClose").Input("handle: Ref(string)").Attr("cancel_pending_enqueues: bool = false")
    .SetIsStateful();
REGISTER_OP("QueueSize").Input("handle: Ref(string)").Output("size: int32").SetIsStateful()
    .SetShapeFn(shape_fn::ScalarShape);

Output FIFOQueue(const Scope& scope, const std::vector<DataType>& component_types,
                 const std::vector<PartialTensorShape>& shapes, int64_t capacity, const std::string& container,
                 const std::string& shared_name) {
  return OpBuilder(scope, "FIFOQueue")
      .Attr("component_types", AttrValue::TypeList(component_types))
      .Attr("shapes", AttrValue::ShapeList(shapes))
      .Attr("capacity", capacity)
      .Attr("container", container)
      .Attr("shared_name", shared_name)
      .FinalizeOutput();
}

Node* QueueEnqueue(const Scope& scope, Input queue, const std::vector<Output>& components) {
  std::vector<Input> inputs(components.begin(), components.end());
  return OpBuilder(scope, "QueueEnqueue").Input(queue).InputList(inputs).Finalize();
}

std::vector<Output> QueueDequeue(const Scope& scope, Input queue,
                                 const std::vector<DataType>& component_types) {
  return OpBuilder(scope, "QueueDequeue")
      .Input(queue)
      .Attr("component_types", AttrValue::TypeList(component_types))
      .FinalizeOutputs();
}

Node* QueueClose(const Scope& scope, Input queue, bool cancel_pending_enqueues) {
  return OpBuilder(scope, "QueueClose")
      .Input(queue)
      .Attr("cancel_pending_enqueues", cancel_pending_enqueues)
      .Finalize();
}

Output QueueSize(const Scope& scope, Input queue) {
  return OpBuilder(scope, "QueueSize").Input(queue).FinalizeOutput();
}

}  // namespace tact

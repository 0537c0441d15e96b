#include "graph/ops/data_flow_ops.h"

#include "graph/op_registry.h"

namespace tact {

// The queue's handle is a string ref, as TensorFlow's v1 queues have it: a
// ref edge keeps the ops that use the queue on its device.
REGISTER_OP("FIFOQueue").Output("handle: Ref(string)").Attr("component_types: list(type)")
    .Attr("shapes: list(shape) = []").Attr("capacity: int = -1").Attr("container: string = ''")
    .Attr("shared_name: string = ''").SetIsStateful().SetShapeFn(shape_fn::ScalarShape);
REGISTER_OP("PaddingFIFOQueue").Output("handle: Ref(string)").Attr("component_types: list(type)")
    .Attr("shapes: list(shape)").Attr("capacity: int = -1").Attr("container: string = ''")
    .Attr("shared_name: string = ''").SetIsStateful().SetShapeFn(shape_fn::ScalarShape);
REGISTER_OP("RandomShuffleQueue").Output("handle: Ref(string)").Attr("component_types: list(type)")
    .Attr("shapes: list(shape) = []").Attr("capacity: int = -1").Attr("min_after_dequeue: int = 0")
    .Attr("seed: int = 0").Attr("container: string = ''").Attr("shared_name: string = ''").SetIsStateful()
    .SetShapeFn(shape_fn::ScalarShape);
REGISTER_OP("QueueEnqueue").Input("handle: Ref(string)").Input("components: Tcomponents")
    .Attr("Tcomponents: list(type)").SetIsStateful();
REGISTER_OP("QueueEnqueueMany").Input("handle: Ref(string)").Input("components: Tcomponents")
    .Attr("Tcomponents: list(type)").SetIsStateful();
REGISTER_OP("QueueDequeue").Input("handle: Ref(string)").Output("components: component_types")
    .Attr("component_types: list(type)").SetIsStateful().SetShapeFn(shape_fn::Unknown);
REGISTER_OP("QueueDequeueMany").Input("handle: Ref(string)").Input("n: int32")
    .Output("components: component_types").Attr("component_types: list(type)").SetIsStateful()
    .SetShapeFn(shape_fn::Unknown);
REGISTER_OP("QueueDequeueUpTo").Input("handle: Ref(string)").Input("n: int32")
    .Output("components: component_types").Attr("component_types: list(type)").SetIsStateful()
    .SetShapeFn(shape_fn::Unknown);
REGISTER_OP("QueueClose").Input("handle: Ref(string)").Attr("cancel_pending_enqueues: bool = false")
    .SetIsStateful();
REGISTER_OP("QueueSize").Input("handle: Ref(string)").Output("size: int32").SetIsStateful()
    .SetShapeFn(shape_fn::ScalarShape);

namespace {

// The attrs every kind of queue has.
OpBuilder QueueBuilder(const Scope& scope, const char* op, const std::vector<DataType>& component_types,
                       const std::vector<PartialTensorShape>& shapes, int64_t capacity,
                       const std::string& container, const std::string& shared_name) {
  OpBuilder b(scope, op);
  b.Attr("component_types", AttrValue::TypeList(component_types))
      .Attr("shapes", AttrValue::ShapeList(shapes))
      .Attr("capacity", capacity)
      .Attr("container", container)
      .Attr("shared_name", shared_name);
  return b;
}

Node* Enqueue(const Scope& scope, const char* op, Input queue, const std::vector<Output>& components) {
  std::vector<Input> inputs(components.begin(), components.end());
  return OpBuilder(scope, op).Input(queue).InputList(inputs).Finalize();
}

}  // namespace

Output FIFOQueue(const Scope& scope, const std::vector<DataType>& component_types,
                 const std::vector<PartialTensorShape>& shapes, int64_t capacity, const std::string& container,
                 const std::string& shared_name) {
  return QueueBuilder(scope, "FIFOQueue", component_types, shapes, capacity, container, shared_name)
      .FinalizeOutput();
}

Output PaddingFIFOQueue(const Scope& scope, const std::vector<DataType>& component_types,
                        const std::vector<PartialTensorShape>& shapes, int64_t capacity,
                        const std::string& container, const std::string& shared_name) {
  return QueueBuilder(scope, "PaddingFIFOQueue", component_types, shapes, capacity, container, shared_name)
      .FinalizeOutput();
}

Output RandomShuffleQueue(const Scope& scope, const std::vector<DataType>& component_types,
                          int64_t min_after_dequeue, int64_t seed,
                          const std::vector<PartialTensorShape>& shapes, int64_t capacity,
                          const std::string& container, const std::string& shared_name) {
  return QueueBuilder(scope, "RandomShuffleQueue", component_types, shapes, capacity, container, shared_name)
      .Attr("min_after_dequeue", min_after_dequeue)
      .Attr("seed", seed)
      .FinalizeOutput();
}

Node* QueueEnqueue(const Scope& scope, Input queue, const std::vector<Output>& components) {
  return Enqueue(scope, "QueueEnqueue", queue, components);
}

Node* QueueEnqueueMany(const Scope& scope, Input queue, const std::vector<Output>& components) {
  return Enqueue(scope, "QueueEnqueueMany", queue, components);
}

std::vector<Output> QueueDequeue(const Scope& scope, Input queue,
                                 const std::vector<DataType>& component_types) {
  return OpBuilder(scope, "QueueDequeue")
      .Input(queue)
      .Attr("component_types", AttrValue::TypeList(component_types))
      .FinalizeOutputs();
}

std::vector<Output> QueueDequeueMany(const Scope& scope, Input queue, Input n,
                                     const std::vector<DataType>& component_types, bool up_to) {
  return OpBuilder(scope, up_to ? "QueueDequeueUpTo" : "QueueDequeueMany")
      .Input(queue)
      .Input(n)
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

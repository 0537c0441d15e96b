#include "graph/shape_refiner.h"

namespace tact {

Status InferNodeShapes(Node* node) {
  std::vector<PartialTensorShape> inputs(node->num_inputs());
  std::vector<const Tensor*> values(node->num_inputs(), nullptr);
  for (const Edge* e : node->in_edges()) {
    if (e->IsControlEdge()) continue;
    inputs[e->dst_input] = e->src->output_shape(e->src_output);
    // A Const's value lets Reshape, Fill, Sum ... know their output shape.
    if (e->src->op() == "Const") {
      auto it = e->src->attrs().find("value");
      if (it != e->src->attrs().end() && it->second.kind() == AttrValue::Kind::kTensor) {
        values[e->dst_input] = &it->second.tensor();
      }
    }
  }
  InferenceContext ctx(&node->attrs(), std::move(inputs), std::move(values), node->num_outputs());
  // A Shape op's value is its input's shape, as far as inference knows it.
  for (const Edge* e : node->in_edges()) {
    if (e->IsControlEdge() || e->src->op() != "Shape") continue;
    const Edge* in = e->src->input_edge(0);
    if (in == nullptr) continue;
    const PartialTensorShape& shape = in->src->output_shape(in->src_output);
    if (!shape.unknown_rank()) ctx.set_input_shape_value(e->dst_input, shape);
  }
  Status s;
  try {
    s = node->op_def().shape_fn(&ctx);
  } catch (const std::exception& e) {
    // A shape function must return errors; one that throws on odd input
    // (std::out_of_range from a vector) still must not take the process.
    s = errors::Internal("shape function threw: ", e.what());
  }
  if (!s.ok()) return s.WithPrefix(node->ErrorPrefix());
  node->set_output_shapes(ctx.outputs());
  return Status::OK();
}

Status InferShapes(Graph* graph) {
  TACT_ASSIGN_OR_RETURN(std::vector<Node*> order, graph->TopologicalOrder());
  for (Node* n : order) TACT_RETURN_IF_ERROR(InferNodeShapes(n));
  return Status::OK();
}

}  // namespace tact

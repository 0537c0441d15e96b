#include "graph/gradients/indexed_slices.h"

#include "graph/gradients/grad_helpers.h"
#include "graph/graph.h"

namespace tact {
namespace {

// The node that input `port` of `node` reads, looking through Identity nodes.
const Node* ThroughIdentity(const Node* node, int port) {
  const Edge* e = node->input_edge(port);
  while (e != nullptr && e->src->op() == "Identity") e = e->src->input_edge(0);
  return e == nullptr ? nullptr : e->src;
}

}  // namespace

bool AsIndexedSlices(const Output& grad, const Output& var, IndexedSlices* slices) {
  if (!grad.ok() || !var.ok() || grad.index != 0 || grad.node->op() != "UnsortedSegmentSum") {
    return false;
  }
  const Edge* data = grad.node->input_edge(0);
  const Edge* ids = grad.node->input_edge(1);
  if (data == nullptr || ids == nullptr) return false;
  // Gather's gradient has var's rows; a sum into some other count is not it.
  if (!grad.node->output_shape(0).IsCompatibleWith(var.node->output_shape(var.index))) return false;
  for (const Edge* e : ids->src->out_edges()) {
    if (e->IsControlEdge() || e->src_output != ids->src_output || e->dst_input != 1) continue;
    // GatherV2 along axis 0 gets Gather's gradient (nn_grad.cc).
    if (e->dst->op() != "Gather" && !(e->dst->op() == "GatherV2" && grad::IsConstZero(grad::In(e->dst, 2)))) {
      continue;
    }
    if (ThroughIdentity(e->dst, 0) != var.node) continue;
    slices->values = Output(data->src, data->src_output);
    slices->indices = Output(ids->src, ids->src_output);
    return true;
  }
  return false;
}

}  // namespace tact

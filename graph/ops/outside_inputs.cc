#include "graph/ops/outside_inputs.h"

#include <map>
#include <memory>
#include <utility>
#include <vector>

namespace tact {

Status RewireOutsideInputs(const Scope& scope, const OutsideInputs& spec) {
  Graph* g = scope.graph();
  // The copies made here are inside too, and read outside on purpose.
  const int end = spec.scan_to < 0 ? g->num_node_ids() : spec.scan_to;
  for (int id = spec.scan_from; id < end; ++id) {
    Node* n = g->node(id);
    if (n == nullptr) continue;
    if (n->in_edges().empty()) {
      if (spec.pivot != nullptr) g->AddControlEdge(spec.pivot, n);
      continue;
    }
    const std::vector<const Edge*> in(n->in_edges().begin(), n->in_edges().end());
    for (const Edge* e : in) {
      if (e->src->id() >= spec.first_inside_id) continue;
      if (e->IsControlEdge()) {
        if (spec.outside_control_allowed) continue;
        return errors::InvalidArgument(spec.what, ": node '", n->name(),
                                       "' has a control input from '", e->src->name(),
                                       "', built outside it; only data inputs may cross into it");
      }
      const Output copy = spec.bring_in(Output(e->src, e->src_output));
      if (!copy.ok()) return scope.status();
      const int port = e->dst_input;
      g->RemoveEdge(e);
      TACT_RETURN_IF_ERROR(g->AddEdge(copy.node, copy.index, n, port).status());
    }
  }
  return Status::OK();
}

std::function<Output(const Output&)> OncePerOutput(std::function<Output(const Output&)> make) {
  auto copies = std::make_shared<std::map<std::pair<Node*, int>, Output>>();
  return [copies, make = std::move(make)](const Output& outside) {
    const std::pair<Node*, int> key{outside.node, outside.index};
    auto it = copies->find(key);
    if (it == copies->end()) it = copies->emplace(key, make(outside)).first;
    return it->second;
  };
}

Output InsideOutput(const Output& out, const OutsideInputs& spec) {
  if (!out.ok() || out.node->id() >= spec.first_inside_id) return out;
  return spec.bring_in(out);
}

}  // namespace tact

#include "placement/flat_graph.h"

#include "graph/topological_sort.h"

namespace tact {

FlatGraph FlatGraph::Gather(const Graph& graph) {
  FlatGraph f;
  const int n_ids = graph.num_node_ids();
  f.live_.assign(n_ids, 0);
  f.allows_cycles_.assign(n_ids, 0);
  f.first_in_.assign(n_ids + 1, 0);
  f.num_out_.assign(n_ids, 0);
  f.in_.reserve(graph.num_edges());
  for (int id = 0; id < n_ids; ++id) {
    f.first_in_[id] = static_cast<int>(f.in_.size());
    PrefetchNode(graph, id + kPrefetchDistance);
    const Node* node = graph.node(id);
    if (node == nullptr) continue;
    f.live_[id] = 1;
    ++f.num_live_;
    f.allows_cycles_[id] = node->op_def().allows_cycles;
    f.num_out_[id] = static_cast<int>(node->out_edges().size());
    for (const Edge* e : node->in_edges()) {
      const bool ref = !e->IsControlEdge() && IsRefType(node->input_type(e->dst_input));
      f.in_.push_back(InEdge{e->src->id(), e->src_output, e->dst_input, ref});
    }
  }
  f.first_in_[n_ids] = static_cast<int>(f.in_.size());
  return f;
}

std::vector<int> FlatGraph::TopologicalOrder() const {
  // The edges that count (not out of an op that allows cycles), turned
  // from by-destination to by-source. Within one source the destinations'
  // order does not matter: the sort takes the lowest ready id whatever
  // order they became ready in.
  const int n_ids = num_ids();
  std::vector<int> first_out(n_ids + 1, 0);
  for (const InEdge& e : in_) {
    if (!allows_cycles_[e.src]) ++first_out[e.src + 1];
  }
  for (int id = 0; id < n_ids; ++id) first_out[id + 1] += first_out[id];
  std::vector<int> out_dst(first_out[n_ids]);
  std::vector<int> next(first_out.begin(), first_out.end() - 1);
  for (int id = 0; id < n_ids; ++id) {
    for (const InEdge* e = in_begin(id); e != in_end(id); ++e) {
      if (!allows_cycles_[e->src]) out_dst[next[e->src]++] = id;
    }
  }
  return TopologicalSort(live_, first_out, out_dst);
}

}  // namespace tact

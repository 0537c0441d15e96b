#include "placement/recv_schedule.h"

#include <algorithm>
#include <iterator>

namespace tact {

StatusOr<RecvSchedule> RecvSchedule::Compute(const Graph& graph,
                                             const std::vector<int>& node_device,
                                             int num_devices) {
  const int n = graph.num_node_ids();
  RecvSchedule s;
  s.asap_.assign(n, 0);
  s.alap_.assign(n, 0);
  // Successor lists in one flat array (CSR), from one walk over the edges:
  // the three passes below then read plain arrays instead of chasing an
  // Edge and a Node pointer per edge, which on a large graph is a cache
  // miss or two each. Edges out of ops that allow cycles (NextIteration)
  // are back edges and are left out.
  std::vector<int> first(n + 1, 0);
  std::vector<int> succ;
  succ.reserve(graph.num_edges());
  for (int id = 0; id < n; ++id) {
    first[id] = static_cast<int>(succ.size());
    const Node* node = graph.node(id);
    if (node == nullptr || node->op_def().allows_cycles) continue;
    for (const Edge* e : node->out_edges()) succ.push_back(e->dst->id());
  }
  first[n] = static_cast<int>(succ.size());
  // Kahn's algorithm with a plain FIFO: linear, and the levels do not
  // depend on the visiting order.
  std::vector<int> pending(n, 0);
  for (int d : succ) ++pending[d];
  std::vector<int> order;
  order.reserve(graph.num_nodes());
  for (int id = 0; id < n; ++id) {
    if (graph.node(id) != nullptr && pending[id] == 0) order.push_back(id);
  }
  for (size_t i = 0; i < order.size(); ++i) {
    const int id = order[i];
    for (int j = first[id]; j < first[id + 1]; ++j) {
      const int d = succ[j];
      s.asap_[d] = std::max(s.asap_[d], s.asap_[id] + 1);
      if (--pending[d] == 0) order.push_back(d);
    }
  }
  if (static_cast<int>(order.size()) != graph.num_nodes()) {
    return graph.TopologicalOrder().status();  // names the nodes of the cycle
  }
  for (int id : order) s.depth_ = std::max(s.depth_, s.asap_[id]);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    int alap = s.depth_;
    for (int j = first[*it]; j < first[*it + 1]; ++j) alap = std::min(alap, s.alap_[succ[j]] - 1);
    s.alap_[*it] = alap;
  }
  // Per device, the best gate among its nodes of ALAP <= each level that
  // occurs there, as a running maximum over levels in increasing order.
  // Only levels a device has are stored: O(nodes), whatever the number of
  // devices or the graph's depth.
  auto later = [&](int a, int b) {  // the better gate of two candidates (-1: none)
    if (a < 0) return b;
    if (b < 0) return a;
    if (s.asap_[a] != s.asap_[b]) return s.asap_[a] > s.asap_[b] ? a : b;
    return std::min(a, b);
  };
  std::vector<int> by_alap(s.depth_ + 2, 0);  // counting sort by ALAP level
  for (int id : order) ++by_alap[s.alap_[id] + 1];
  for (size_t l = 1; l < by_alap.size(); ++l) by_alap[l] += by_alap[l - 1];
  std::vector<int> sorted(order.size());
  for (int id : order) sorted[by_alap[s.alap_[id]]++] = id;
  s.latest_.assign(num_devices, {});
  for (int id : sorted) {
    std::vector<Level>& levels = s.latest_[node_device[id]];
    if (levels.empty() || levels.back().alap < s.alap_[id]) {
      levels.push_back({s.alap_[id], levels.empty() ? id : later(levels.back().gate, id)});
    } else {
      levels.back().gate = later(levels.back().gate, id);
    }
  }
  return s;
}

int RecvSchedule::Gate(int device, int need, int lead, int available) const {
  const int target = need - 1 - std::max(lead, 0);
  const std::vector<Level>& levels = latest_[device];
  // The last level <= target.
  auto it = std::upper_bound(levels.begin(), levels.end(), target,
                             [](int t, const Level& l) { return t < l.alap; });
  if (it == levels.begin()) return -1;
  const int gate = std::prev(it)->gate;
  if (asap_[gate] <= available) return -1;
  return gate;
}

}  // namespace tact

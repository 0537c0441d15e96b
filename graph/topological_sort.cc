#include "graph/topological_sort.h"

#include <functional>
#include <queue>

namespace tact {

std::vector<int> TopologicalSort(const std::vector<char>& live, const std::vector<int>& first_out,
                                 const std::vector<int>& out_dst) {
  // A cursor walks the ids upwards and takes each node that is ready when
  // it gets there; only a node that becomes ready behind the cursor (an
  // edge to a lower id) waits in a min-heap, and that heap, always below
  // the cursor, goes first. A priority queue over every node cost a fifth
  // of the placer's time on 36,000 nodes.
  const int n_ids = static_cast<int>(live.size());
  std::vector<int> pending(n_ids, 0);
  for (int dst : out_dst) ++pending[dst];
  std::priority_queue<int, std::vector<int>, std::greater<int>> behind;
  std::vector<int> order;
  order.reserve(n_ids);
  int cursor = 0;
  while (true) {
    int id = -1;
    if (!behind.empty()) {
      id = behind.top();
      behind.pop();
    } else {
      while (cursor < n_ids && (!live[cursor] || pending[cursor] != 0)) ++cursor;
      if (cursor == n_ids) break;
      id = cursor++;
    }
    order.push_back(id);
    for (int k = first_out[id]; k < first_out[id + 1]; ++k) {
      const int dst = out_dst[k];
      if (--pending[dst] == 0 && dst < cursor) behind.push(dst);
    }
  }
  return order;
}

}  // namespace tact

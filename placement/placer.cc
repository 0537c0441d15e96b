// The placer: feasibility and colocation (colocation.h), then the paper's
// greedy simulated placement (simulation.h), then the report.
#include "placement/placer.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <unordered_map>
#include <utility>

#include "placement/colocation.h"
#include "placement/device_list.h"
#include "placement/simulation.h"

namespace tact {
namespace {

// Bytes crossing devices, once per (tensor, receiving device): what the
// partitioner's one Recv per pair (paper Figure 4) will move. From what the
// simulation recorded of every node (its data inputs, its outputs' sizes),
// so this is a walk over flat arrays, not over the graph again.
int64_t BytesAcrossDevices(const std::vector<Node*>& order, const Simulation& sim, int words) {
  std::vector<uint64_t> sent(size_t(sim.num_ports()) * words, 0);  // by port: devices it goes to
  int64_t total = 0;
  for (const Node* n : order) {
    const int dst = sim.device_of(n->id());
    for (auto* in = sim.data_inputs_begin(n->id()); in != sim.data_inputs_end(n->id()); ++in) {
      if (sim.device_of(in->src) == dst) continue;
      uint64_t* set = &sent[size_t(sim.port_index(in->src, in->port)) * words];
      if (device_set::Contains(set, dst)) continue;
      device_set::Add(set, dst);
      total += sim.output_bytes(in->src, in->port);
    }
  }
  return total;
}

}  // namespace

StatusOr<PlacementReport> Place(Graph* graph, const std::vector<std::string>& device_names,
                                const PlacerOptions& options) {
  TACT_ASSIGN_OR_RETURN(DeviceList devices, DeviceList::Create(device_names));
  std::unique_ptr<CostModel> owned;
  const CostModel* cost = options.cost_model;
  if (cost == nullptr) {
    owned = NewStaticCostModel(*graph);
    cost = owned.get();
  }
  TACT_ASSIGN_OR_RETURN(ColocationGroups groups,
                        BuildColocationGroups(*graph, devices, options.allow_soft_placement));
  TACT_ASSIGN_OR_RETURN(std::vector<Node*> order, graph->TopologicalOrder());

  std::vector<int> group_size(groups.num_groups, 0);
  for (int grp : groups.group_of) {
    if (grp >= 0) ++group_size[grp];
  }
  // TensorFlow's "generator" heuristic: a node with no inputs and one
  // consumer (a Const, a Placeholder) goes where that consumer goes. Placed
  // on its own it would take whichever device is idle first, as every
  // source can at time 0, and its consumer would then wait for a transfer
  // the greedy choice never saw. A ref output (a Variable) is not moved:
  // its other users are its colocation group.
  auto is_generator = [&](const Node& n) {
    const int grp = groups.group_of[n.id()];
    return n.in_edges().empty() && n.out_edges().size() == 1 && n.num_outputs() == 1 &&
           !IsRefType(n.output_type(0)) && group_size[grp] == 1 && groups.assigned[grp] < 0;
  };

  // The greedy walk. A group's device is chosen when its first member in
  // topological order is reached, by that member's completion time: the
  // later members must follow wherever it went.
  std::vector<int> group_device = groups.assigned;
  std::vector<char> deferred(graph->num_node_ids(), 0);
  Simulation sim(*graph, *cost, devices);
  auto place = [&](const Node& node, int preferred) {
    const int grp = groups.group_of[node.id()];
    sim.Prepare(node);
    int best = group_device[grp];
    if (best < 0 && preferred >= 0 && device_set::Contains(groups.Feasible(grp), preferred)) {
      best = preferred;
    }
    if (best < 0) {
      double best_finish = std::numeric_limits<double>::infinity();
      // Increasing order and a strict `<`: ties go to the lowest index.
      device_set::ForEach(groups.Feasible(grp), groups.words, [&](int d) {
        const double f = sim.CompletionOn(d);
        if (f < best_finish) {
          best_finish = f;
          best = d;
        }
      });
    }
    group_device[grp] = best;
    sim.Commit(best);
  };
  for (const Node* node : order) {
    if (is_generator(*node)) {
      deferred[node->id()] = 1;
      continue;
    }
    place(*node, -1);
    const int d = sim.device_of(node->id());
    for (const Edge* e : node->in_edges()) {
      if (deferred[e->src->id()]) {
        deferred[e->src->id()] = 0;
        place(*e->src, d);
      }
    }
  }

  PlacementReport report;
  report.makespan_seconds = sim.makespan();
  report.soft_placed_nodes = std::move(groups.soft_placed_nodes);
  std::vector<int> count(devices.size(), 0);
  for (const Node* node : order) ++count[sim.device_of(node->id())];
  for (int d = 0; d < devices.size(); ++d) report.nodes_per_device[devices.name(d)] = count[d];
  report.bytes_across_devices = BytesAcrossDevices(order, sim, devices.words());
  // Only now, with nothing left that can fail: on error nothing is assigned.
  for (Node* node : order) node->set_assigned_device(devices.name(sim.device_of(node->id())));
  return report;
}

StatusOr<double> SimulatedMakespan(const Graph& graph, const CostModel& cost) {
  TACT_ASSIGN_OR_RETURN(std::vector<Node*> order, graph.TopologicalOrder());
  std::vector<std::string> names;
  std::unordered_map<std::string, int> index;
  for (const Node* node : order) {
    if (node->assigned_device().empty()) {
      return errors::FailedPrecondition(node->ErrorPrefix(),
                                        "has no assigned device to simulate");
    }
    if (index.emplace(node->assigned_device(), static_cast<int>(names.size())).second) {
      names.push_back(node->assigned_device());
    }
  }
  if (names.empty()) return 0.0;
  TACT_ASSIGN_OR_RETURN(DeviceList devices, DeviceList::Create(names));
  Simulation sim(graph, cost, devices);
  for (const Node* node : order) {
    const int d = index[node->assigned_device()];
    sim.Prepare(*node);
    sim.Commit(d);
  }
  return sim.makespan();
}

}  // namespace tact

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

  // TensorFlow's "generator" heuristic, for every source: a node with no
  // inputs (a Const, a Placeholder, a Variable) waits until its first
  // consumer is reached and goes where that consumer goes. Placed on its
  // own it would take whichever device is idle at time 0, as every source
  // can, and its consumers would then wait for a transfer the greedy choice
  // never saw; a Variable's colocation group (the ops that update it) would
  // follow it there, away from the gradients they read.
  auto is_deferred_source = [&](const Node& n) {
    return n.in_edges().empty() && !n.out_edges().empty() &&
           groups.assigned[groups.group_of[n.id()]] < 0;
  };

  // The greedy walk. A group's device is chosen when its first member in
  // topological order is reached (a deferred source: when its consumer
  // is), by that member's completion time: the later members must follow
  // wherever it went.
  std::vector<int> group_device = groups.assigned;
  std::vector<char> deferred(graph->num_node_ids(), 0);
  Simulation sim(*graph, *cost, devices);
  // Prepares `node` and returns its device: its group's, else `preferred`
  // when feasible, else the earliest completion.
  auto choose = [&](const Node& node, int preferred) {
    const int grp = groups.group_of[node.id()];
    sim.Prepare(node);
    int best = group_device[grp];
    if (best < 0 && preferred >= 0 && device_set::Contains(groups.Feasible(grp), preferred)) {
      best = preferred;
    }
    if (best >= 0) return best;
    double best_finish = std::numeric_limits<double>::infinity();
    double best_local = 0;
    // Ties go to the device that already holds the most input bytes (no
    // transfer, no Send/Recv pair), then, by increasing order and a
    // strict `>`, to the lowest index.
    device_set::ForEach(groups.Feasible(grp), groups.words, [&](int d) {
      const double f = sim.CompletionOn(d);
      if (f > best_finish) return;
      const double local = sim.LocalInputBytes(d);
      if (f < best_finish || local > best_local) {
        best_finish = f;
        best_local = local;
        best = d;
      }
    });
    return best;
  };
  // Places the node prepared last.
  auto commit = [&](const Node& node, int d) {
    group_device[groups.group_of[node.id()]] = d;
    sim.Commit(d);
  };
  for (const Node* node : order) {
    if (is_deferred_source(*node)) {
      deferred[node->id()] = 1;
      continue;
    }
    // Where the node would go without its deferred sources; they are
    // simulated there first (before it, as the executor would run them),
    // then the node, which now sees them.
    int d = choose(*node, -1);
    bool had_sources = false;
    for (const Edge* e : node->in_edges()) {
      const Node& src = *e->src;
      if (!deferred[src.id()]) continue;
      deferred[src.id()] = 0;
      had_sources = true;
      commit(src, choose(src, d));
    }
    if (had_sources) d = choose(*node, d);
    commit(*node, d);
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

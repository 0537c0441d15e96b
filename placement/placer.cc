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
#include "placement/flat_graph.h"
#include "placement/prefetch.h"
#include "placement/simulation.h"

namespace tact {
namespace {

// Bytes crossing devices, once per (tensor, receiving device): what the
// partitioner's one Recv per pair (paper Figure 4) will move. From what the
// simulation recorded of every node (its data inputs, its outputs' sizes),
// so this is a walk over flat arrays, not over the graph again.
// The total does not depend on the order, so the nodes are visited by id
// (every id the simulation placed), without touching a Node. A copied Const
// crosses to devices of its type as a copy, not a transfer.
int64_t BytesAcrossDevices(int num_node_ids, const Simulation& sim, const DeviceList& devices) {
  const int words = devices.words();
  std::vector<uint64_t> sent(size_t(sim.num_ports()) * words, 0);  // by port: devices it goes to
  int64_t total = 0;
  for (int id = 0; id < num_node_ids; ++id) {
    const int dst = sim.device_of(id);
    if (dst < 0) continue;  // no live node
    for (auto* in = sim.data_inputs_begin(id); in != sim.data_inputs_end(id); ++in) {
      const int src = sim.device_of(in->src);
      if (src == dst ||
          (src >= 0 && sim.copied_to_readers(in->src) && devices.type_of(src) == devices.type_of(dst))) {
        continue;
      }
      uint64_t* set = &sent[size_t(sim.port_index(in->src, in->port)) * words];
      if (device_set::Contains(set, dst)) continue;
      device_set::Add(set, dst);
      total += sim.output_bytes(in->src, in->port);
    }
  }
  return total;
}

// A Variable and the ops colocated with it (its reads, its initializer, its
// updates) run where the variable lives, every step. The greedy walk would
// choose that device when it meets the group's first member: often the
// initializer's Assign, fed by a random op only the CPU has a kernel for,
// or a read whose consumer is not placed yet. Either would pull the state,
// and every step's update, away from the device that computes with it. So
// where the devices are of several types, the state goes with the bulk of
// the work: to the type on which the nodes that could run on every type
// would take the least time in sum, by the cost model (on a CPU and a GPU:
// the GPU, as TensorFlow's placer would by device priority). A state group
// that cannot go there keeps its feasible devices. With devices of one type
// nothing changes.
void KeepStateWithTheWork(const Graph& graph, const DeviceList& devices, const CostModel& cost,
                          ColocationGroups* groups) {
  const int types = static_cast<int>(devices.types().size());
  if (types < 2) return;
  auto type_mask = [&](int g) {
    uint32_t mask = 0;
    device_set::ForEach(groups->Feasible(g), groups->words,
                        [&](int d) { mask |= uint32_t{1} << devices.type_of(d); });
    return mask;
  };
  const uint32_t all_types = types >= 32 ? ~uint32_t{0} : (uint32_t{1} << types) - 1;
  std::vector<double> seconds(types, 0.0);
  std::vector<char> holds_state(groups->num_groups, 0);
  for (const Node* n : graph.nodes()) {
    const int g = groups->group_of[n->id()];
    if (g < 0) continue;
    holds_state[g] |= n->op() == "Variable" || n->op() == "VariableV2";
    if (type_mask(g) != all_types) continue;
    for (int t = 0; t < types; ++t) seconds[t] += cost.ExecutionSeconds(*n, devices.types()[t]);
  }
  const int best = static_cast<int>(std::min_element(seconds.begin(), seconds.end()) - seconds.begin());
  for (int g = 0; g < groups->num_groups; ++g) {
    if (!holds_state[g] || groups->assigned[g] >= 0 || !(type_mask(g) >> best & 1)) continue;
    uint64_t* feasible = &groups->feasible[size_t(g) * groups->words];
    device_set::ForEach(feasible, groups->words, [&](int d) {
      if (devices.type_of(d) != best) feasible[d / 64] &= ~(uint64_t{1} << (d % 64));
    });
  }
}

// Whether every device is of one task (one process).
bool OneTask(const DeviceList& devices) {
  for (int d = 1; d < devices.size(); ++d) {
    const DeviceName& a = devices.parsed(0);
    const DeviceName& b = devices.parsed(d);
    if (a.job != b.job || a.replica != b.replica || a.task != b.task) return false;
  }
  return true;
}

// One walk over `order`, placing each colocation group as `strategy` says
// (kOneDevice: on `home` where feasible, else the next feasible device
// after it), and simulating the step as it goes.
std::unique_ptr<Simulation> Walk(const Graph& graph, const FlatGraph& flat,
                                 const ColocationGroups& groups, const DeviceList& devices,
                                 const CostModel& cost, const std::vector<int>& order,
                                 PlacementStrategy strategy, int home, int64_t copied_const_max_bytes) {
  // TensorFlow's "generator" heuristic, for every source: a node with no
  // inputs (a Const, a Placeholder, a Variable) waits until its first
  // consumer is reached and goes where that consumer goes. Placed on its
  // own it would take whichever device is idle at time 0, as every source
  // can, and its consumers would then wait for a transfer the greedy choice
  // never saw; a Variable's colocation group (the ops that update it) would
  // follow it there, away from the gradients they read.
  auto is_deferred_source = [&](int id) {
    return !flat.has_inputs(id) && flat.num_out(id) > 0 &&
           groups.assigned[groups.group_of[id]] < 0;
  };

  // The greedy walk. A group's device is chosen when its first member in
  // topological order is reached (a deferred source: when its consumer
  // is), by that member's completion time: the later members must follow
  // wherever it went.
  std::vector<int> group_device = groups.assigned;
  std::vector<char> deferred(graph.num_node_ids(), 0);
  auto sim = std::make_unique<Simulation>(flat, cost, devices, copied_const_max_bytes);
  int round_robin = 0;  // the device after the last one kRoundRobin gave
  // Prepares `node` and returns its device: its group's, else `preferred`
  // when feasible, else what the strategy picks: by default the earliest
  // completion.
  auto choose = [&](const Node& node, int preferred) {
    const int grp = groups.group_of[node.id()];
    sim->Prepare(node);
    int best = group_device[grp];
    if (best < 0 && preferred >= 0 && device_set::Contains(groups.Feasible(grp), preferred)) {
      best = preferred;
    }
    if (best >= 0) return best;
    if (strategy != PlacementStrategy::kGreedy) {
      const int n = devices.size();
      const int first = strategy == PlacementStrategy::kOneDevice ? home : round_robin;
      for (int k = 0; k < n; ++k) {
        const int d = (first + k) % n;
        if (!device_set::Contains(groups.Feasible(grp), d)) continue;
        if (strategy == PlacementStrategy::kRoundRobin) round_robin = (d + 1) % n;
        return d;
      }
    }
    double best_finish = std::numeric_limits<double>::infinity();
    double best_local = 0;
    // Ties go to the device that already holds the most input bytes (no
    // transfer, no Send/Recv pair), then, by increasing order and a
    // strict `>`, to the lowest index.
    device_set::ForEach(groups.Feasible(grp), groups.words, [&](int d) {
      const double f = sim->CompletionOn(d);
      if (f > best_finish) return;
      const double local = sim->LocalInputBytes(d);
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
    sim->Commit(d);
  };
  for (size_t i = 0; i < order.size(); ++i) {
    const int id = order[i];
    if (i + kPrefetchDistance < order.size()) PrefetchNode(graph, order[i + kPrefetchDistance]);
    if (is_deferred_source(id)) {
      deferred[id] = 1;
      continue;
    }
    const Node& node = *graph.node(id);
    // Where the node would go without its deferred sources; they are
    // simulated there first (before it, as the executor would run them),
    // then the node, which now sees them.
    int d = choose(node, -1);
    bool had_sources = false;
    for (const FlatGraph::InEdge* e = flat.in_begin(id); e != flat.in_end(id); ++e) {
      if (!deferred[e->src]) continue;
      deferred[e->src] = 0;
      had_sources = true;
      const Node& src = *graph.node(e->src);
      commit(src, choose(src, d));
    }
    if (had_sources) d = choose(node, d);
    commit(node, d);
  }

  return sim;
}

// The simulated step with every node on device `home`, or -1 when a
// colocation group cannot go there (then some nodes run elsewhere, with
// transfers, and only a walk can tell). Alone on a device, in topological
// order, with no transfers, a node is ready before the device is free: the
// simulation would leave no idle gap, and the step takes the sum of the
// nodes' times. Those the greedy walk `greedy` asked for are not asked
// again.
double OneDeviceMakespan(const Graph& graph, const ColocationGroups& groups, const CostModel& cost,
                         const DeviceList& devices, const std::vector<int>& order,
                         const Simulation& greedy, int home) {
  for (int g = 0; g < groups.num_groups; ++g) {
    if ((groups.assigned[g] >= 0 && groups.assigned[g] != home) ||
        !device_set::Contains(groups.Feasible(g), home)) {
      return -1;
    }
  }
  const int type = devices.type_of(home);
  double seconds = 0;
  for (int id : order) {
    const double known = greedy.exec_seconds(id, type);
    seconds += known >= 0 ? known
                          : std::max(0.0, cost.ExecutionSeconds(*graph.node(id), devices.types()[type]));
  }
  return seconds;
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
  // The graph's structure, gathered once (flat_graph.h): colocation, the
  // order and the simulation read it instead of walking the edges again.
  const FlatGraph flat = FlatGraph::Gather(*graph);
  TACT_ASSIGN_OR_RETURN(
      ColocationGroups groups,
      BuildColocationGroups(*graph, flat, devices, options.allow_soft_placement));
  if (options.strategy == PlacementStrategy::kGreedy) KeepStateWithTheWork(*graph, devices, *cost, &groups);
  const std::vector<int> order = flat.TopologicalOrder();
  if (static_cast<int>(order.size()) != flat.num_live()) {
    return graph->TopologicalOrder().status();  // names the nodes of the cycle
  }

  auto walk = [&](PlacementStrategy strategy, int home) {
    return Walk(*graph, flat, groups, devices, *cost, order, strategy, home,
                options.duplicate_const_max_bytes);
  };
  std::unique_ptr<Simulation> sim = walk(options.strategy, 0);
  if (options.strategy == PlacementStrategy::kGreedy && devices.size() > 1 && OneTask(devices)) {
    // Spreading a step over devices pays for what the simulation leaves
    // out: each partition's step messages and executor, and on a Recv the
    // wake-up of the thread that waits for it (20-50 us on this project's
    // 2-core machines). A plan that the simulation finds only a little
    // faster than the best single device is no faster when run: the mlp's
    // training step on two CPUs simulates 5% faster spread, and ran 1%
    // faster to 16% slower. So the greedy plan must beat the best one-device
    // plan (one per device type) by `min_spread_gain` of its time. Only
    // within one task: across tasks the spreading is the graph's own (a ps
    // holding the variables, workers computing), and one device is no
    // baseline.
    int best_home = -1;
    double best_one = std::numeric_limits<double>::infinity();
    for (int t = 0; t < static_cast<int>(devices.types().size()); ++t) {
      int home = 0;
      while (devices.type_of(home) != t) ++home;
      double one = OneDeviceMakespan(*graph, groups, *cost, devices, order, *sim, home);
      if (one < 0) one = walk(PlacementStrategy::kOneDevice, home)->makespan();
      if (one < best_one) {
        best_one = one;
        best_home = home;
      }
    }
    if (best_home >= 0 && best_one * (1 - options.min_spread_gain) <= sim->makespan()) {
      sim = walk(PlacementStrategy::kOneDevice, best_home);
    }
  }

  PlacementReport report;
  report.makespan_seconds = sim->makespan();
  report.soft_placed_nodes = std::move(groups.soft_placed_nodes);
  // By id from here on: flat arrays, and the nodes in the order they sit
  // in memory rather than in topological order.
  const int n_ids = graph->num_node_ids();
  std::vector<int> count(devices.size(), 0);
  for (int id = 0; id < n_ids; ++id) {
    if (sim->device_of(id) >= 0) ++count[sim->device_of(id)];
  }
  for (int d = 0; d < devices.size(); ++d) report.nodes_per_device[devices.name(d)] = count[d];
  report.bytes_across_devices = BytesAcrossDevices(n_ids, *sim, devices);
  // Only now, with nothing left that can fail: on error nothing is assigned.
  for (int id = 0; id < n_ids; ++id) {
    PrefetchNode(*graph, id + kPrefetchDistance);
    const int d = sim->device_of(id);
    if (d >= 0) graph->node(id)->set_assigned_device(devices.name(d));
  }
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
  const FlatGraph flat = FlatGraph::Gather(graph);
  Simulation sim(flat, cost, devices);
  for (const Node* node : order) {
    const int d = index[node->assigned_device()];
    sim.Prepare(*node);
    sim.Commit(d);
  }
  return sim.makespan();
}

}  // namespace tact

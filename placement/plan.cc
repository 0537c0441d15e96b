#include "placement/plan.h"

#include "graph/cse.h"
#include "graph/shape_refiner.h"

namespace tact {

namespace {

// The Run's graph as the placer sees it: pruned, with shapes (a GraphDef
// carries none, and without them the cost model would see every tensor as
// one element) and common subexpressions merged.
StatusOr<std::unique_ptr<Graph>> RunGraph(const Graph& full, const SubgraphSpec& spec,
                                          int* cse_removed) {
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, BuildSubgraph(full, spec));
  TACT_RETURN_IF_ERROR(InferShapes(graph.get()));
  const int removed = EliminateCommonSubexpressions(graph.get());
  if (cse_removed != nullptr) *cse_removed = removed;
  return graph;
}

}  // namespace

StatusOr<RunPlan> PlanRun(const Graph& full, SubgraphSpec spec, const PlanOptions& options) {
  if (options.devices.empty()) return errors::InvalidArgument("PlanRun: no devices");
  // A feed enters, and a fetch leaves, where its node is asked to run (a
  // tower's images on its worker); one of a node asked nowhere on the
  // first device, the client's in TensorFlow's terms.
  spec.device = options.devices[0];
  RunPlan plan;
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, RunGraph(full, spec, &plan.cse_removed));
  plan.nodes = graph->num_nodes();
  plan.edges = graph->num_edges();
  for (const auto& [name, device] : options.pinned) {
    if (Node* n = graph->FindNode(name)) n->set_assigned_device(device);
  }
  // The placer costs the Const copies the partitioner will make.
  PlacerOptions placer = options.placer;
  placer.duplicate_const_max_bytes = options.partition.duplicate_const_max_bytes;
  TACT_ASSIGN_OR_RETURN(plan.placement, Place(graph.get(), options.devices, placer));
  for (Node* n : graph->nodes()) plan.assignment[n->name()] = n->assigned_device();
  TACT_ASSIGN_OR_RETURN(plan.partitions, Partition(*graph, options.partition));
  // Their rendezvous keys name the device they ended up on: the partition
  // that holds them puts feeds and takes fetches under its own name.
  for (auto& [device, def] : plan.partitions.partitions) {
    for (NodeDef& n : def.nodes) {
      bool client = false;
      if (!GetAttr(n.attrs, "client_terminated", &client).ok() || !client) continue;
      n.attrs[n.op == "_Recv" ? "recv_device" : "send_device"] = AttrValue::String(device);
    }
  }
  return plan;
}

StatusOr<double> PlannedMakespan(const Graph& full, SubgraphSpec spec, const std::string& client_device,
                                 const std::map<std::string, std::string>& assignment,
                                 const CostModel& cost) {
  spec.device = client_device;
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, RunGraph(full, spec, nullptr));
  for (Node* n : graph->nodes()) {
    auto it = assignment.find(n->name());
    if (it == assignment.end()) {
      return errors::FailedPrecondition("node '", n->name(), "' has no device in the plan");
    }
    n->set_assigned_device(it->second);
  }
  return SimulatedMakespan(*graph, cost);
}

}  // namespace tact

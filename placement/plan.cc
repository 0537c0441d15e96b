#include "placement/plan.h"

#include "graph/cse.h"
#include "graph/shape_refiner.h"

namespace tact {

StatusOr<RunPlan> PlanRun(const Graph& full, SubgraphSpec spec, const PlanOptions& options) {
  if (options.devices.empty()) return errors::InvalidArgument("PlanRun: no devices");
  // A feed enters, and a fetch leaves, where its node is asked to run (a
  // tower's images on its worker); one of a node asked nowhere on the
  // first device, the client's in TensorFlow's terms.
  spec.device = options.devices[0];
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, BuildSubgraph(full, spec));
  // A GraphDef carries no shapes; without them the cost model would see
  // every tensor as one element.
  TACT_RETURN_IF_ERROR(InferShapes(graph.get()));
  RunPlan plan;
  plan.cse_removed = EliminateCommonSubexpressions(graph.get());
  plan.nodes = graph->num_nodes();
  plan.edges = graph->num_edges();
  TACT_ASSIGN_OR_RETURN(plan.placement, Place(graph.get(), options.devices, options.placer));
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

}  // namespace tact

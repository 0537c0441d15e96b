#include "placement/plan.h"

#include "graph/cse.h"
#include "graph/shape_refiner.h"

namespace tact {

StatusOr<RunPlan> PlanRun(const Graph& full, SubgraphSpec spec, const PlanOptions& options) {
  if (options.devices.empty()) return errors::InvalidArgument("PlanRun: no devices");
  spec.device = options.devices[0];
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, BuildSubgraph(full, spec));
  // A GraphDef carries no shapes; without them the cost model would see
  // every tensor as one element.
  TACT_RETURN_IF_ERROR(InferShapes(graph.get()));
  for (Node* n : graph->nodes()) {
    bool client = false;
    if (GetAttr(n->attrs(), "client_terminated", &client).ok() && client) {
      n->set_assigned_device(spec.device);
    }
  }
  RunPlan plan;
  plan.cse_removed = EliminateCommonSubexpressions(graph.get());
  plan.nodes = graph->num_nodes();
  plan.edges = graph->num_edges();
  TACT_ASSIGN_OR_RETURN(plan.placement, Place(graph.get(), options.devices, options.placer));
  TACT_ASSIGN_OR_RETURN(plan.partitions, Partition(*graph, options.partition));
  return plan;
}

}  // namespace tact

// Feeds what executed steps report into the measured cost model (paper
// 3.2.1: the placer's estimates may come from "actual execution times and
// tensor sizes from previous runs"):
//
//   RunMetadata md;
//   session->Run(feeds, fetches, targets, &md);
//   MeasuredCostModel costs(*graph);
//   Status s = RecordStepStats(md.step_stats.nodes(), &costs);
//   Place(graph.get(), devices, {.cost_model = &costs});
//
// Not thread-safe on `model` (MeasuredCostModel::Record needs exclusive
// access).
#pragma once

#include <vector>

#include "actors/executor.h"
#include "placement/cost_model.h"

namespace tact {

// Records each node's time (end - start) on its device's type and the bytes
// of each output it produced. Nodes the partitioner added (_Send, _Recv)
// are recorded like any other: the model matches nodes by name, so they
// cost nothing for nodes of the graph being placed. InvalidArgument, naming
// the node, for stats whose device is not a full device name; records made
// before it stay.
Status RecordStepStats(const std::vector<NodeExecStats>& nodes, MeasuredCostModel* model);

}  // namespace tact

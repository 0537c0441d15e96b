// The graph of one Run, made ready for its devices (paper 3.2 with 4.2 and
// 5.1): prune to what the fetches and targets need, infer shapes (the cost
// model reads them), merge common subexpressions, place every node (the
// client's feeds and fetches too, near their consumers and producers), and split the
// graph by device with a Send/Recv pair on each edge that crosses. The
// master runs it once per (feeds, fetches, targets); `tact graph` runs it
// to show what the master would do.
//
//   PlanOptions o;
//   o.devices = {".../device:CPU:0", ".../device:CPU:1"};
//   StatusOr<RunPlan> plan = PlanRun(*graph, spec, o);
//   for (auto& [device, def] : plan->partitions.partitions) ...register...
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "graph/subgraph.h"
#include "placement/partitioner.h"
#include "placement/placer.h"

namespace tact {

struct PlanOptions {
  std::vector<std::string> devices;  // full names
  PlacerOptions placer;
  PartitionOptions partition;
  // Node name -> full device name: assigned before placement (a Variable
  // keeps the device its state lives on when a Run is placed again). Names
  // not in the Run's graph are ignored.
  std::map<std::string, std::string> pinned;
};

struct RunPlan {
  int nodes = 0;  // after pruning and CSE, before Send/Recv pairs
  int edges = 0;
  int cse_removed = 0;
  PlacementReport placement;
  // Node name -> device, for every node of the placed graph (before the
  // partitioner adds its Send/Recv pairs).
  std::map<std::string, std::string> assignment;
  PartitionResult partitions;  // by device; devices given no node have none
};

// `spec.device` is ignored: the client's feeds and fetches are placed like
// other nodes, and their keys name the device they get. Errors name the
// feed, fetch, target or node at fault: an unknown name, a shape function
// that fails, a node no device can take. `full` is not changed.
StatusOr<RunPlan> PlanRun(const Graph& full, SubgraphSpec spec, const PlanOptions& options);

// The simulated makespan (placer.h's SimulatedMakespan) of the Run's graph
// under `cost` when its nodes sit where `assignment` says (a RunPlan's):
// how the master compares the plan it has with one placed from measured
// costs. FailedPrecondition naming a node the assignment does not place.
StatusOr<double> PlannedMakespan(const Graph& full, SubgraphSpec spec, const std::string& client_device,
                                 const std::map<std::string, std::string>& assignment,
                                 const CostModel& cost);

}  // namespace tact

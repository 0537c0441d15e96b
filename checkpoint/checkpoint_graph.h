// Save and Restore nodes for a graph's variables (paper 3.3): one SaveShard
// per device that holds variables (on a cluster: per ps task), committed
// together, and one RestoreShard per device feeding an Assign for each of
// its variables. The client feeds the step to save or to restore.
//
//   TACT_ASSIGN_OR_RETURN(CheckpointNodes c, AddCheckpointNodes(&def, dir, 5));
//   session->Run({{c.step, Tensor::Scalar<int64_t>(1000)}}, {}, {c.save});
//   session->Run({{c.step, Tensor::Scalar<int64_t>(1000)}}, {}, {c.restore});
#pragma once

#include <string>
#include <vector>

#include "checkpoint/checkpoint.h"
#include "graph/graph_def.h"

namespace tact {

struct CheckpointNodes {
  std::string step;     // int64 scalar placeholder
  std::string save;     // target: writes every shard, commits, keeps the newest `keep`
  std::string restore;  // target: assigns every variable from the checkpoint of `step`
  std::vector<VariableSpec> expected;  // what a checkpoint of this graph holds
  int shards = 0;
};

// Adds the nodes for every Variable of `def` (optimizer slots and the
// global step included) under the name scope "checkpoint/". InvalidArgument
// when the graph has no Variable, or one whose shape is not fully defined.
StatusOr<CheckpointNodes> AddCheckpointNodes(GraphDef* def, const std::string& dir, int keep);

}  // namespace tact

// In-graph replication (paper section 7, Figure 7): one client graph with
// a model replica ("tower") per worker task and the variables on the
// parameter-server tasks.
//
//   sync:  every tower computes gradients on its share of the batch; the
//          gradients are averaged and applied once per step, so a step
//          equals one step of a single model on the whole batch.
//   async: every tower has its own update of the shared variables; the
//          client runs the towers' steps concurrently.
//
// Variables are spread over the ps tasks by size (largest first onto the
// least loaded task); every node of tower k requests /job:worker/task:k,
// except the updates, which stay with their variables.
#pragma once

#include <string>
#include <vector>

#include "apps/train/train_graph.h"

namespace tact::apps {

struct ReplicaOptions {
  int ps = 1;
  int workers = 1;
  bool sync = true;
};

struct Tower {
  std::string images, labels;  // this tower's placeholders
  std::string loss, correct;
  std::string train_op;        // async only: this tower's own update
};

struct ReplicatedTrainGraph {
  GraphDef def;
  std::vector<Tower> towers;
  std::string training;  // shared bool placeholder
  std::string train_op;  // sync only: the averaged update
  std::string init_op;
  std::vector<std::pair<VariableInfo, std::string>> variables;  // with their value's "name:0"
  int64_t parameters = 0;
};

// InvalidArgument for ps or workers below 1, or an unknown model.
StatusOr<ReplicatedTrainGraph> BuildReplicatedTrainGraph(const TrainOptions& opt,
                                                         const ReplicaOptions& replicas);

}  // namespace tact::apps

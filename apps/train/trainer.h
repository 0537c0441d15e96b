// Training a model of graph/nn/models.h on Fashion-MNIST through a
// SupervisedSession (actors/supervised_session.h): the forward graph, its
// gradients (a graph rewrite, paper 4.1), Adam as a subgraph over the
// variables, and one step per batch. Checkpoints and recovery are the
// session's; the trainer feeds the step the session names, and injects the
// faults asked for (apps/cluster/fault_plan.h).
//
//   TrainOptions opt;
//   opt.model.name = "mlp";
//   StatusOr<TrainResult> r = Train(opt);
//
// Deterministic: the same options give the same variables bit for bit
// (TrainResult::variables_fingerprint), whatever the thread count.
#pragma once

#include "apps/train/train_options.h"
#include "apps/train/train_result.h"
#include "graph/status.h"

namespace tact::apps {

StatusOr<TrainResult> Train(const TrainOptions& options);

}  // namespace tact::apps

// The training graph of a model of graph/nn/models.h, as `tact train` runs it
// and `tact graph` draws it: the forward network, its loss and accuracy,
// the gradients (a graph rewrite, paper 4.1) and Adam over the variables.
//
//   TrainOptions opt;
//   opt.model.name = "cnn";
//   StatusOr<TrainGraph> g = BuildTrainGraph(opt);
//   // session->Extend(g->def); Run({images, labels, training}, {loss}, {train_op})
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "apps/train/train_options.h"
#include "graph/graph_def.h"
#include "graph/nn/optimizers.h"
#include "graph/nn/variables.h"

namespace tact::apps {

// The nodes a training run feeds, fetches and targets.
struct TrainGraph {
  GraphDef def;
  std::string images, labels, training;  // placeholders ("name:0")
  std::string loss, correct;             // mean loss; number of right predictions
  std::string train_op, init_op;
  std::vector<std::pair<VariableInfo, std::string>> variables;  // with their value's "name:0"
  int64_t parameters = 0;
};

// Reads opt.model.name (an unknown one is InvalidArgument), seed, optimizer,
// learning_rate and check_numerics.
StatusOr<TrainGraph> BuildTrainGraph(const TrainOptions& opt);

// The parts every training graph has: the placeholders, the global step,
// the model of opt.model.name with its loss and accuracy, and the gradients of
// the loss.
struct ModelGraph {
  Output images, labels, training;
  Output global_step;  // keys dropout's masks (graph/nn/layers.h)
  Output loss, correct;
  std::vector<Output> vars, grads;  // trainable variables and their gradients
};
StatusOr<ModelGraph> BuildModelGraph(const Scope& scope, const TrainOptions& opt);

// The rate opt.model.learning_rate gives, or without one the optimizer's
// default, as Keras's: 1e-3 for adam and rmsprop, 1e-2 for sgd and
// momentum. Adagrad takes PyTorch's 1e-2: at Keras's 1e-3 the mlp reached
// 0.68 test accuracy in an epoch, against 0.81 (and sgd 0.61 at 1e-3).
double LearningRate(const ModelOptions& m);

// opt.model.optimizer at LearningRate (momentum: 0.9).
StatusOr<Optimizer> TrainOptimizer(const TrainOptions& opt);

// The train op: opt's optimizer over `gv`, at its rate or its decaying
// rate, the gradients clipped first when opt.model.clip_norm asks.
// InvalidArgument naming the flag for a bad rate, schedule or norm.
StatusOr<Output> AddTrainOp(const Scope& s, const TrainOptions& opt, const GradsAndVars& gv,
                            Output global_step);

// An Identity reading each variable of the scope's graph (build it last).
std::vector<std::pair<VariableInfo, std::string>> VariableReads(const Scope& scope);

}  // namespace tact::apps

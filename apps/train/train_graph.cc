#include "apps/train/train_graph.h"

#include <cmath>

#include "graph/nn/clipping.h"
#include "graph/nn/models.h"
#include "graph/gradients/gradients.h"
#include "graph/nn/layers.h"
#include "graph/nn/optimizers.h"
#include "graph/nn/schedules.h"
#include "graph/ops/all_ops.h"

namespace tact::apps {

double LearningRate(const ModelOptions& m) {
  if (m.learning_rate.has_value()) return *m.learning_rate;
  return m.optimizer == "sgd" || m.optimizer == "momentum" || m.optimizer == "adagrad" ? 1e-2 : 1e-3;
}

StatusOr<Optimizer> TrainOptimizer(const TrainOptions& opt) {
  const double rate = LearningRate(opt.model);
  // As PyTorch's optimizers refuse them: a negative or NaN rate trains
  // away from the minimum, or into NaN, and says nothing.
  if (!std::isfinite(rate) || rate < 0) {
    return errors::InvalidArgument("the learning rate must be a finite number >= 0, got ", rate);
  }
  if (opt.model.optimizer == "adam") return Optimizer::Adam(rate);
  if (opt.model.optimizer == "sgd") return Optimizer::GradientDescent(rate);
  if (opt.model.optimizer == "momentum") return Optimizer::Momentum(rate, 0.9);
  if (opt.model.optimizer == "rmsprop") return Optimizer::RMSProp(rate);
  if (opt.model.optimizer == "adagrad") return Optimizer::Adagrad(rate);
  return errors::InvalidArgument("unknown optimizer '", opt.model.optimizer,
                                 "': expected adam, sgd, momentum, rmsprop or adagrad");
}

StatusOr<Output> AddTrainOp(const Scope& s, const TrainOptions& opt, const GradsAndVars& gv,
                            Output global_step) {
  const ModelOptions& m = opt.model;
  TACT_ASSIGN_OR_RETURN(Optimizer optimizer, TrainOptimizer(opt));
  if (m.lr_decay_steps < 0) {
    return errors::InvalidArgument("--lr-decay-steps must be >= 0 (0: a constant rate), got ",
                                   m.lr_decay_steps);
  }
  if (!std::isfinite(m.lr_decay_rate) || m.lr_decay_rate <= 0) {
    return errors::InvalidArgument("--lr-decay-rate must be a finite number > 0, got ",
                                   m.lr_decay_rate);
  }
  if (m.lr_decay_steps == 0 && (m.lr_decay_rate != 1.0 || m.lr_staircase)) {
    return errors::InvalidArgument(
        "--lr-decay-rate and --lr-staircase need --lr-decay-steps (how often the rate decays)");
  }
  if (!std::isfinite(m.clip_norm) || m.clip_norm < 0) {
    return errors::InvalidArgument("--clip-norm must be a finite number >= 0 (0: no clipping), got ",
                                   m.clip_norm);
  }
  if (!m.lr_boundaries.empty() || !m.lr_values.empty()) {
    if (m.lr_decay_steps > 0) {
      return errors::InvalidArgument(
          "--lr-boundaries/--lr-values and --lr-decay-steps are two schedules: give one");
    }
    if (m.lr_values.size() != m.lr_boundaries.size() + 1) {
      return errors::InvalidArgument("--lr-values needs one value more than --lr-boundaries: got ",
                                     m.lr_values.size(), " values for ", m.lr_boundaries.size(),
                                     " boundaries");
    }
    StatusOr<Output> rate = PiecewiseConstantDecay(s, global_step, m.lr_boundaries, m.lr_values);
    if (!rate.ok()) {
      return errors::InvalidArgument("--lr-boundaries/--lr-values: ", rate.status().message());
    }
    optimizer = optimizer.WithLearningRate(*rate);
  }
  if (m.lr_decay_steps > 0) {
    TACT_ASSIGN_OR_RETURN(Output rate, ExponentialDecay(s, LearningRate(m), global_step,
                                                        m.lr_decay_steps, m.lr_decay_rate,
                                                        m.lr_staircase));
    optimizer = optimizer.WithLearningRate(rate);
  }
  GradsAndVars clipped = gv;
  if (m.clip_norm > 0) {
    std::vector<Output> grads;
    for (const auto& [g, v] : gv) grads.push_back(g);
    TACT_ASSIGN_OR_RETURN(ClippedGradients c, ClipByGlobalNorm(s, grads, m.clip_norm));
    for (size_t i = 0; i < gv.size(); ++i) clipped[i].first = c.grads[i];
  }
  return ApplyGradients(s, optimizer, clipped, global_step, m.check_numerics);
}

StatusOr<ModelGraph> BuildModelGraph(const Scope& s, const TrainOptions& opt) {
  ModelGraph m;
  m.images = Placeholder(s.WithOpName("images"), DT_FLOAT, PartialTensorShape({-1, 28, 28, 1}));
  m.labels = Placeholder(s.WithOpName("labels"), DT_INT32, PartialTensorShape({-1}));
  m.training = Placeholder(s.WithOpName("training"), DT_BOOL, PartialTensorShape({}));
  m.global_step = GlobalStep(s);
  Output logits = BuildModel(s.NewSubScope(opt.model.name), opt.model.name, m.images, m.training,
                             static_cast<int64_t>(opt.model.seed), m.global_step);
  TACT_RETURN_IF_ERROR(s.status());
  auto xent = SparseSoftmaxCrossEntropyWithLogits(s, logits, m.labels);
  m.loss = Mean(s.WithOpName("loss"), xent[0], 0);
  auto predicted = ArgMax(s, logits, 1, DT_INT32);
  m.correct = Sum(s.WithOpName("correct"), Cast(s, Equal(s, predicted, m.labels), DT_INT32), 0);
  for (const VariableInfo& v : TrainableVariables(s)) m.vars.push_back(v.var);
  TACT_RETURN_IF_ERROR(
      AddSymbolicGradients(s.NewSubScope("gradients"), {m.loss}, m.vars, {}, &m.grads));
  return m;
}

std::vector<std::pair<VariableInfo, std::string>> VariableReads(const Scope& s) {
  std::vector<std::pair<VariableInfo, std::string>> reads;
  for (const VariableInfo& v : AllVariables(s)) {
    reads.emplace_back(v, Identity(s.WithOpName(v.name + "/read_value"), v.var).name());
  }
  return reads;
}

StatusOr<TrainGraph> BuildTrainGraph(const TrainOptions& opt) {
  Scope s = Scope::NewRootScope();
  TrainGraph g;
  TACT_ASSIGN_OR_RETURN(ModelGraph m, BuildModelGraph(s, opt));
  GradsAndVars gv;
  for (size_t i = 0; i < m.vars.size(); ++i) gv.emplace_back(m.grads[i], m.vars[i]);
  TACT_ASSIGN_OR_RETURN(Output train_op, AddTrainOp(s, opt, gv, m.global_step));
  // After ApplyGradients, so that the optimizer's slots are initialised too.
  Node* init = InitAllVariables(s);
  g.variables = VariableReads(s);
  TACT_RETURN_IF_ERROR(s.status());
  TACT_ASSIGN_OR_RETURN(g.def, s.ToGraphDef());
  g.images = m.images.name();
  g.labels = m.labels.name();
  g.training = m.training.name();
  g.loss = m.loss.name();
  g.correct = m.correct.name();
  g.train_op = train_op.node->name();
  g.init_op = init->name();
  g.parameters = CountParameters(s);
  return g;
}
}  // namespace tact::apps

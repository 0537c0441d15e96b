#include "apps/train/train_graph.h"

#include <cmath>

#include "graph/nn/models.h"
#include "graph/gradients/gradients.h"
#include "graph/nn/layers.h"
#include "graph/nn/optimizers.h"
#include "graph/ops/all_ops.h"

namespace tact::apps {

StatusOr<Optimizer> TrainOptimizer(const TrainOptions& opt) {
  // As PyTorch's optimizers refuse them: a negative or NaN rate trains
  // away from the minimum, or into NaN, and says nothing.
  if (!std::isfinite(opt.model.learning_rate) || opt.model.learning_rate < 0) {
    return errors::InvalidArgument("the learning rate must be a finite number >= 0, got ",
                                   opt.model.learning_rate);
  }
  if (opt.model.optimizer == "adam") return Optimizer::Adam(opt.model.learning_rate);
  if (opt.model.optimizer == "sgd") return Optimizer::GradientDescent(opt.model.learning_rate);
  if (opt.model.optimizer == "momentum") return Optimizer::Momentum(opt.model.learning_rate, 0.9);
  if (opt.model.optimizer == "rmsprop") return Optimizer::RMSProp(opt.model.learning_rate);
  if (opt.model.optimizer == "adagrad") return Optimizer::Adagrad(opt.model.learning_rate);
  return errors::InvalidArgument("unknown optimizer '", opt.model.optimizer,
                                 "': expected adam, sgd, momentum, rmsprop or adagrad");
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
  TACT_ASSIGN_OR_RETURN(Optimizer optimizer, TrainOptimizer(opt));
  TACT_ASSIGN_OR_RETURN(Output train_op,
                        ApplyGradients(s, optimizer, gv, m.global_step, opt.model.check_numerics));
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

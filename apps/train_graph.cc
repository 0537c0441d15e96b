#include "apps/train_graph.h"

#include "apps/models.h"
#include "graph/gradients/gradients.h"
#include "graph/nn/layers.h"
#include "graph/nn/optimizers.h"
#include "graph/ops/all_ops.h"

namespace tact::apps {

StatusOr<TrainGraph> BuildTrainGraph(const TrainOptions& opt) {
  Scope s = Scope::NewRootScope();
  TrainGraph g;
  auto images = Placeholder(s.WithOpName("images"), DT_FLOAT, PartialTensorShape({-1, 28, 28, 1}));
  auto labels = Placeholder(s.WithOpName("labels"), DT_INT32, PartialTensorShape({-1}));
  auto training = Placeholder(s.WithOpName("training"), DT_BOOL, PartialTensorShape({}));
  Output logits = BuildModel(s.NewSubScope(opt.model), opt.model, images, training,
                             static_cast<int64_t>(opt.seed));
  TACT_RETURN_IF_ERROR(s.status());
  auto xent = SparseSoftmaxCrossEntropyWithLogits(s, logits, labels);
  auto loss = Mean(s.WithOpName("loss"), xent[0], 0);
  auto predicted = ArgMax(s, logits, 1, DT_INT32);
  auto correct = Sum(s.WithOpName("correct"), Cast(s, Equal(s, predicted, labels), DT_INT32), 0);

  std::vector<Output> vars;
  for (const VariableInfo& v : TrainableVariables(s)) vars.push_back(v.var);
  std::vector<Output> grads;
  TACT_RETURN_IF_ERROR(AddSymbolicGradients(s.NewSubScope("gradients"), {loss}, vars, {}, &grads));
  GradsAndVars gv;
  for (size_t i = 0; i < vars.size(); ++i) gv.emplace_back(grads[i], vars[i]);
  TACT_ASSIGN_OR_RETURN(Output train_op,
                        ApplyGradients(s, Optimizer::Adam(opt.learning_rate), gv, GlobalStep(s),
                                       opt.check_numerics));
  // After ApplyGradients, so that the optimizer's slots are initialised too.
  Node* init = InitAllVariables(s);
  for (const VariableInfo& v : AllVariables(s)) {
    g.variables.emplace_back(v, Identity(s.WithOpName(v.name + "/read_value"), v.var).name());
  }
  TACT_RETURN_IF_ERROR(s.status());
  TACT_ASSIGN_OR_RETURN(g.def, s.ToGraphDef());
  g.images = images.name();
  g.labels = labels.name();
  g.training = training.name();
  g.loss = loss.name();
  g.correct = correct.name();
  g.train_op = train_op.node->name();
  g.init_op = init->name();
  g.parameters = CountParameters(s);
  return g;
}
}  // namespace tact::apps

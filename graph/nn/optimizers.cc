#include "graph/nn/optimizers.h"

#include <cmath>
#include <optional>

#include "graph/gradients/indexed_slices.h"
#include "graph/nn/builder_util.h"
#include "graph/nn/initializers.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {

using nn_util::Fail;
using nn_util::ScalarOf;

// The static shape of `var`: the recorded one, else its inferred one.
StatusOr<TensorShape> VarShape(const Scope& scope, const Output& var) {
  for (const VariableInfo& v : AllVariables(scope)) {
    if (v.var.node == var.node) return v.shape;
  }
  const PartialTensorShape shape = var.node->output_shape(var.index);
  if (!shape.IsFullyDefined()) {
    return errors::InvalidArgument("optimizer: variable '", var.name(), "' has shape ",
                                   shape.DebugString(), "; a slot needs a fully defined one");
  }
  return shape.AsTensorShape();
}

Output Slot(const Scope& scope, const Output& var, const TensorShape& shape, const char* suffix,
            Initializer init = ZerosInit()) {
  return VariableWithInit(scope, var.node->name() + "/" + suffix, shape, std::move(init),
                          BaseType(var.type()),
                          /*trainable=*/false);
}

// The ranges PyTorch's optimizers accept (a NaN is in none): a negative
// rate or accumulator, or a decay of 1 or more, trains into NaN or away
// from the minimum without a word.
Status CheckHyperParameters(const Optimizer& o) {
  auto at_least_zero = [&](const char* name, double v) -> Status {
    if (std::isfinite(v) && v >= 0) return Status::OK();
    return errors::InvalidArgument(o.Name(), ": ", name, " must be a finite number >= 0, got ", v);
  };
  auto decay = [&](const char* name, double v) -> Status {
    if (v >= 0 && v < 1) return Status::OK();
    return errors::InvalidArgument(o.Name(), ": ", name, " must be in [0, 1), got ", v);
  };
  if (!o.learning_rate_tensor.ok()) {
    TACT_RETURN_IF_ERROR(at_least_zero("learning_rate", o.learning_rate));
  }
  switch (o.kind) {
    case Optimizer::Kind::kGradientDescent:
      return Status::OK();
    case Optimizer::Kind::kMomentum:
      return at_least_zero("momentum", o.momentum);
    case Optimizer::Kind::kAdam:
      TACT_RETURN_IF_ERROR(decay("beta1", o.beta1));
      TACT_RETURN_IF_ERROR(decay("beta2", o.beta2));
      return at_least_zero("epsilon", o.epsilon);
    case Optimizer::Kind::kRMSProp:
      TACT_RETURN_IF_ERROR(decay("rho", o.rho));
      TACT_RETURN_IF_ERROR(at_least_zero("momentum", o.momentum));
      return at_least_zero("epsilon", o.epsilon);
    case Optimizer::Kind::kAdagrad:
      TACT_RETURN_IF_ERROR(at_least_zero("initial_accumulator_value",
                                         o.initial_accumulator_value));
      return at_least_zero("epsilon", o.epsilon);
  }
  return Status::OK();
}

// The slices with each distinct row once, its gradients summed, and the
// rows as a vector: what the SparseApply* ops take (a row named twice would
// be updated twice there, as in TensorFlow, whose optimizers sum first too).
IndexedSlices SumDuplicates(const Scope& s, const IndexedSlices& g, const TensorShape& var_shape) {
  std::vector<int64_t> row_shape = {-1};
  for (int d = 1; d < var_shape.dims(); ++d) row_shape.push_back(var_shape.dim_size(d));
  Output values = Reshape(s, g.values, Tensor::FromVector<int64_t>(row_shape));
  std::vector<Output> unique = Unique(s, Reshape(s, g.indices, {-1}));
  return {UnsortedSegmentSum(s, values, unique[1], Size(s, unique[0])), unique[0]};
}

// Adam on the picked rows alone (lazy_adam): each row's moments and value
// move by Adam's formulas (graph/ops/training_ops.h), read with Gather and
// written back with ScatterUpdate and ScatterSub; `g` has each row once.
Output LazyAdam(const Scope& s, const Output& var, const Output& m, const Output& v,
                const Output& beta1_power, const Output& beta2_power, const Input& lr,
                const Optimizer& o, DataType dt, const IndexedSlices& g) {
  const Tensor one = ScalarOf(dt, 1);
  Output lr_t = Div(s, Mul(s, lr, Sqrt(s, Sub(s, one, beta2_power))), Sub(s, one, beta1_power));
  Output m_rows = Add(s, Mul(s, Gather(s, m, g.indices), ScalarOf(dt, o.beta1)),
                      Mul(s, g.values, ScalarOf(dt, 1 - o.beta1)));
  Output v_rows = Add(s, Mul(s, Gather(s, v, g.indices), ScalarOf(dt, o.beta2)),
                      Mul(s, Square(s, g.values), ScalarOf(dt, 1 - o.beta2)));
  Output step = Div(s, Mul(s, lr_t, m_rows), Add(s, Sqrt(s, v_rows), ScalarOf(dt, o.epsilon)));
  Output moments = NoOp(s.WithControlDependencies(
      {ScatterUpdate(s, m, g.indices, m_rows), ScatterUpdate(s, v, g.indices, v_rows)}));
  return ScatterSub(s.WithControlDependencies({moments}), var, g.indices, step);
}

}  // namespace

Optimizer Optimizer::GradientDescent(double lr) {
  Optimizer o;
  o.kind = Kind::kGradientDescent;
  o.learning_rate = lr;
  return o;
}

Optimizer Optimizer::Momentum(double lr, double momentum, bool use_nesterov) {
  Optimizer o;
  o.kind = Kind::kMomentum;
  o.learning_rate = lr;
  o.momentum = momentum;
  o.use_nesterov = use_nesterov;
  return o;
}

Optimizer Optimizer::Adam(double lr, double beta1, double beta2, double epsilon) {
  Optimizer o;
  o.kind = Kind::kAdam;
  o.learning_rate = lr;
  o.beta1 = beta1;
  o.beta2 = beta2;
  o.epsilon = epsilon;
  return o;
}

Optimizer Optimizer::RMSProp(double lr, double rho, double momentum, double epsilon) {
  Optimizer o;
  o.kind = Kind::kRMSProp;
  o.learning_rate = lr;
  o.rho = rho;
  o.momentum = momentum;
  o.epsilon = epsilon;
  return o;
}

Optimizer Optimizer::Adagrad(double lr, double initial_accumulator_value, double epsilon) {
  Optimizer o;
  o.kind = Kind::kAdagrad;
  o.learning_rate = lr;
  o.initial_accumulator_value = initial_accumulator_value;
  o.epsilon = epsilon;
  return o;
}

Optimizer Optimizer::WithLearningRate(Output rate) const {
  Optimizer o = *this;
  o.learning_rate_tensor = rate;
  return o;
}

std::string Optimizer::Name() const {
  switch (kind) {
    case Kind::kGradientDescent:
      return "GradientDescent";
    case Kind::kMomentum:
      return "Momentum";
    case Kind::kAdam:
      return "Adam";
    case Kind::kRMSProp:
      return "RMSProp";
    case Kind::kAdagrad:
      return "Adagrad";
  }
  return "Optimizer";
}

Output GlobalStep(const Scope& scope) {
  auto zero = [](const Scope& s, const TensorShape&, DataType) {
    return Const(s, Tensor::Scalar<int64_t>(0));
  };
  return VariableWithInit(scope, "global_step", TensorShape({}), zero, DT_INT64,
                          /*trainable=*/false);
}

StatusOr<Output> ApplyGradients(const Scope& scope, const Optimizer& optimizer,
                                const GradsAndVars& grads_and_vars, Output global_step,
                                bool check_numerics) {
  if (!scope.ok()) return scope.status();
  if (Status hp = CheckHyperParameters(optimizer); !hp.ok()) return Fail(scope, hp);
  if (grads_and_vars.empty()) {
    return Fail(scope, errors::InvalidArgument("ApplyGradients: no (gradient, variable) pairs"));
  }
  std::vector<TensorShape> shapes;
  for (const auto& [grad, var] : grads_and_vars) {
    if (!grad.ok() || !var.ok()) {
      return Fail(scope, errors::InvalidArgument("ApplyGradients: an empty gradient or variable (",
                                                 grad.name(), ", ", var.name(), ")"));
    }
    if (BaseType(grad.type()) != BaseType(var.type()) ||
        BaseType(var.type()) != BaseType(grads_and_vars[0].second.type())) {
      return Fail(scope,
                  errors::InvalidArgument("ApplyGradients: gradient '", grad.name(), "' is ",
                                          DataTypeString(BaseType(grad.type())), " and variable '",
                                          var.name(), "' is ", DataTypeString(BaseType(var.type())),
                                          "; every pair must share the first variable's dtype"));
    }
    auto shape = VarShape(scope, var);
    if (!shape.ok()) return Fail(scope, shape.status());
    shapes.push_back(*shape);
  }
  Scope s = scope.NewSubScope(optimizer.Name());
  const DataType dt = BaseType(grads_and_vars[0].second.type());

  // The sparse form of each gradient the optimizer can use it for.
  std::vector<Output> grads;
  std::vector<std::optional<IndexedSlices>> sparse(grads_and_vars.size());
  for (size_t i = 0; i < grads_and_vars.size(); ++i) {
    const auto& [grad, var] = grads_and_vars[i];
    grads.push_back(grad);
    IndexedSlices slices;
    const bool adam = optimizer.kind == Optimizer::Kind::kAdam;
    if (optimizer.sparse_updates && (!adam || optimizer.lazy_adam) &&
        AsIndexedSlices(grad, var, &slices)) {
      sparse[i] = slices;
    }
  }

  // The checks gate every update: each Apply has a control input from one
  // NoOp that runs only once every gradient has been found finite. A
  // sparse gradient's values are checked: they are all of it.
  Scope update = s;
  if (check_numerics) {
    std::vector<Output> checks;
    for (size_t i = 0; i < grads.size(); ++i) {
      Output& g = sparse[i] ? sparse[i]->values : grads[i];
      g = CheckNumerics(s, g, "gradient for " + grads_and_vars[i].second.node->name());
      checks.push_back(g);
    }
    Node* checked = NoOp(s.WithOpName("check_numerics").WithControlDependencies(checks));
    update = s.WithControlDependencies({Output(checked)});
  }

  // Adam's bias correction, shared by every variable as in TensorFlow.
  Output beta1_power, beta2_power;
  if (optimizer.kind == Optimizer::Kind::kAdam) {
    beta1_power = VariableWithInit(scope, "beta1_power", TensorShape({}),
                                   ConstantInit(optimizer.beta1), dt, /*trainable=*/false);
    beta2_power = VariableWithInit(scope, "beta2_power", TensorShape({}),
                                   ConstantInit(optimizer.beta2), dt, /*trainable=*/false);
  }

  const Output& rate = optimizer.learning_rate_tensor;
  if (rate.ok() && BaseType(rate.type()) != dt) {
    return Fail(scope, errors::InvalidArgument("ApplyGradients: the learning rate '", rate.name(),
                                               "' is ", DataTypeString(BaseType(rate.type())),
                                               " and the variables are ", DataTypeString(dt)));
  }
  const Input lr = rate.ok() ? Input(rate) : Input(ScalarOf(dt, optimizer.learning_rate));
  std::vector<Output> applies;
  for (size_t i = 0; i < grads_and_vars.size(); ++i) {
    const Output& var = grads_and_vars[i].second;
    switch (optimizer.kind) {
      case Optimizer::Kind::kGradientDescent:
        applies.push_back(sparse[i] ? ScatterSub(update, var, sparse[i]->indices,
                                                 Mul(update, sparse[i]->values, lr))
                                    : ApplyGradientDescent(update, var, lr, grads[i]));
        break;
      case Optimizer::Kind::kMomentum: {
        Output accum = Slot(scope, var, shapes[i], "Momentum");
        const Tensor momentum = ScalarOf(dt, optimizer.momentum);
        if (sparse[i]) {
          IndexedSlices g = SumDuplicates(s, *sparse[i], shapes[i]);
          applies.push_back(SparseApplyMomentum(update, var, accum, lr, g.values, g.indices,
                                                momentum, false, optimizer.use_nesterov));
        } else {
          applies.push_back(ApplyMomentum(update, var, accum, lr, grads[i], momentum, false,
                                          optimizer.use_nesterov));
        }
        break;
      }
      case Optimizer::Kind::kAdam: {
        Output m = Slot(scope, var, shapes[i], "Adam");
        Output v = Slot(scope, var, shapes[i], "Adam_1");
        if (sparse[i]) {
          applies.push_back(LazyAdam(update, var, m, v, beta1_power, beta2_power, lr, optimizer, dt,
                                     SumDuplicates(s, *sparse[i], shapes[i])));
        } else {
          applies.push_back(ApplyAdam(update, var, m, v, beta1_power, beta2_power, lr,
                                      ScalarOf(dt, optimizer.beta1), ScalarOf(dt, optimizer.beta2),
                                      ScalarOf(dt, optimizer.epsilon), grads[i]));
        }
        break;
      }
      case Optimizer::Kind::kRMSProp: {
        Output ms = Slot(scope, var, shapes[i], "RMSProp");
        Output mom = Slot(scope, var, shapes[i], "RMSProp_1");
        const Tensor rho = ScalarOf(dt, optimizer.rho), momentum = ScalarOf(dt, optimizer.momentum);
        const Tensor epsilon = ScalarOf(dt, optimizer.epsilon);
        if (sparse[i]) {
          IndexedSlices g = SumDuplicates(s, *sparse[i], shapes[i]);
          applies.push_back(SparseApplyRMSProp(update, var, ms, mom, lr, rho, momentum, epsilon,
                                               g.values, g.indices));
        } else {
          applies.push_back(ApplyRMSProp(update, var, ms, mom, lr, rho, momentum, epsilon,
                                         grads[i]));
        }
        break;
      }
      case Optimizer::Kind::kAdagrad: {
        Output accum = Slot(scope, var, shapes[i], "Adagrad",
                            ConstantInit(optimizer.initial_accumulator_value));
        const Tensor epsilon = ScalarOf(dt, optimizer.epsilon);
        if (sparse[i]) {
          IndexedSlices g = SumDuplicates(s, *sparse[i], shapes[i]);
          applies.push_back(
              SparseApplyAdagradV2(update, var, accum, lr, epsilon, g.values, g.indices));
        } else {
          applies.push_back(ApplyAdagradV2(update, var, accum, lr, epsilon, grads[i]));
        }
        break;
      }
    }
  }

  // After every update: the powers advance and the step counts, so the
  // updates of this step read this step's powers.
  std::vector<Output> finish = applies;
  Scope after = s.WithControlDependencies(applies);
  if (optimizer.kind == Optimizer::Kind::kAdam) {
    finish.push_back(
        Assign(after, beta1_power, Mul(after, beta1_power, ScalarOf(dt, optimizer.beta1))));
    finish.push_back(
        Assign(after, beta2_power, Mul(after, beta2_power, ScalarOf(dt, optimizer.beta2))));
  }
  if (global_step.ok()) {
    finish.push_back(AssignAdd(after, global_step, Tensor::Scalar<int64_t>(1)));
  }
  Node* train = NoOp(s.WithOpName("train").WithControlDependencies(finish));
  if (!scope.ok()) return scope.status();
  return Output(train);
}

}  // namespace tact

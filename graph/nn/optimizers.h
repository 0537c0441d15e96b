// Optimizers: the update half of a training step (paper 4.1). Given the
// gradients (from AddSymbolicGradients or fed), ApplyGradients adds one
// fused Apply* op per variable (graph/ops/training_ops.h), the optimizer's
// slot variables, the global step's increment, and a NoOp grouping them:
//
//   Output step = GlobalStep(s);
//   auto train = ApplyGradients(s, Optimizer::Adam(1e-3), {{dw, w}, {db, b}}, step, true);
//   Node* init = InitAllVariables(s.WithOpName("init"));  // after ApplyGradients: covers slots
//   // each session->Run({...}, {}, {train->name()}) is one step
//
// Slots (Momentum's "<var>/Momentum", Adam's "<var>/Adam" (m) and
// "<var>/Adam_1" (v), and Adam's "beta1_power"/"beta2_power", RMSProp's
// "<var>/RMSProp" (ms) and "<var>/RMSProp_1" (mom), Adagrad's
// "<var>/Adagrad" (accum)) are non-trainable variables recorded for
// InitAllVariables (nn/variables.h), so build the init op after
// ApplyGradients. Every slot starts at zero but Adagrad's accumulator, at
// initial_accumulator_value, and Adam's powers, at beta1 and beta2.
//
// The names are TensorFlow 1's; the defaults are Keras's (TensorFlow 2):
//   Adam     lr 1e-3, beta1 0.9, beta2 0.999, epsilon 1e-7
//   RMSProp  lr 1e-3, rho 0.9, momentum 0, epsilon 1e-7, ms from zero
//            (TensorFlow 1 started ms at one; Keras and PyTorch at zero)
//   Adagrad  lr 1e-3, initial_accumulator_value 0.1, epsilon 1e-7
// RMSProp keeps its momentum slot even at momentum 0, as TensorFlow 1's
// did, so that one ApplyRMSProp kernel does every update (epsilon inside
// the square root: TensorFlow's formula, graph/ops/training_ops.h).
//
// Sparse updates: the gradient of a variable read only through Gather (an
// embedding table) is zero but in the rows the batch picked
// (graph/gradients/indexed_slices.h). With `sparse_updates` (the default),
// GradientDescent, Momentum, RMSProp and Adagrad update those rows alone,
// as TensorFlow 1's optimizers do for IndexedSlices: GradientDescent with
// ScatterSub, the others with SparseApply* after summing the gradients of a
// row picked more than once (Unique and UnsortedSegmentSum). The dense
// [rows, ...] gradient is then never computed, and a step costs the rows
// picked, not the table. GradientDescent and Adagrad reach the same values
// as the dense update (a row without gradient does not move in either);
// Momentum and RMSProp leave such a row and its slots as they were, where
// the dense update would decay its slots and move it (TensorFlow's sparse
// semantics; sparse_updates = false gives the dense ones). Adam updates
// densely unless `lazy_adam`: its moments decay in every row, and
// TensorFlow 1's sparse Adam reaches the dense update's values. With
// lazy_adam, only the picked rows' moments move, as PyTorch's SparseAdam
// and TensorFlow Addons' LazyAdam do: a step costs the rows picked, and a
// row without gradient keeps its moments and its value (the bias
// correction, shared by every variable, still advances each step).
//
// With check_numerics every gradient passes through CheckNumerics and every
// update waits on all the checks: a NaN or Inf in any gradient fails the
// step before any variable, slot or the global step changes.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "graph/op_builder.h"

namespace tact {

struct Optimizer {
  enum class Kind { kGradientDescent, kMomentum, kAdam, kRMSProp, kAdagrad };
  Kind kind = Kind::kGradientDescent;
  double learning_rate = 0.01;
  double momentum = 0;  // Momentum, RMSProp
  bool use_nesterov = false;
  double beta1 = 0.9, beta2 = 0.999;  // Adam
  double epsilon = 1e-7;              // Adam, RMSProp, Adagrad
  double rho = 0.9;                   // RMSProp
  double initial_accumulator_value = 0.1;  // Adagrad
  bool sparse_updates = true;  // see "Sparse updates" above
  bool lazy_adam = false;      // Adam: update only the picked rows (above)
  // A scalar tensor that replaces learning_rate when set: a schedule
  // (graph/nn/schedules.h) or any rate computed in the graph, of the
  // variables' dtype.
  Output learning_rate_tensor;

  static Optimizer GradientDescent(double lr);
  static Optimizer Momentum(double lr, double momentum, bool use_nesterov = false);
  static Optimizer Adam(double lr, double beta1 = 0.9, double beta2 = 0.999, double epsilon = 1e-7);
  static Optimizer RMSProp(double lr, double rho = 0.9, double momentum = 0,
                           double epsilon = 1e-7);
  static Optimizer Adagrad(double lr, double initial_accumulator_value = 0.1,
                           double epsilon = 1e-7);
  // This optimizer with its rate computed in the graph.
  Optimizer WithLearningRate(Output rate) const;
  // "GradientDescent", "Momentum", "Adam", "RMSProp" or "Adagrad": the
  // sub-scope of its nodes and the suffix of its slots.
  std::string Name() const;
};

// A non-trainable int64 scalar variable "global_step", initialised to 0.
Output GlobalStep(const Scope& scope);

// (gradient, variable) pairs; each variable must come from VariableWithInit
// or have a fully defined static shape, and match its gradient's dtype.
using GradsAndVars = std::vector<std::pair<Output, Output>>;

// The train op (a NoOp named "<Name()>/train" under scope's prefix).
// `global_step` may be empty (no step counter); otherwise it is an int64
// variable incremented once per step after the updates. InvalidArgument
// (also recorded in the scope) for an empty list, an empty Output, a
// variable of unknown shape, or a hyper-parameter out of the range
// PyTorch's optimizers accept (rates, momenta, epsilons and Adagrad's
// initial accumulator finite and >= 0; beta1, beta2 and rho in [0, 1)).
StatusOr<Output> ApplyGradients(const Scope& scope, const Optimizer& optimizer,
                                const GradsAndVars& grads_and_vars, Output global_step,
                                bool check_numerics);

}  // namespace tact

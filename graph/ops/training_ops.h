// Builder functions for the optimizers' update ops and CheckNumerics.
//
// Each Apply* op updates its variables in place (paper 4.1's "update the
// parameters" step fused into one kernel per variable) and returns the
// updated `var` as a ref, so later ops can read the new value. The
// formulas are TensorFlow's:
//
//   ApplyGradientDescent: var -= alpha * delta
//   ApplyMomentum:        accum = accum * momentum + grad
//                         var -= lr * accum                      (plain)
//                         var -= lr * (grad + momentum * accum)  (use_nesterov)
//   ApplyAdam:            lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)
//                         m = m + (grad - m) * (1 - beta1)
//                         v = v + (grad^2 - v) * (1 - beta2)
//                         var -= lr_t * m / (sqrt(v) + epsilon)
//   ApplyRMSProp:         ms = ms + (grad^2 - ms) * (1 - rho)
//                         mom = mom * momentum + lr * grad / sqrt(ms + epsilon)
//                         var -= mom
//   ApplyAdagrad:         accum += grad^2              (unless update_slots is false)
//                         var -= lr * grad / sqrt(accum)
//   ApplyAdagradV2:       accum += grad^2              (unless update_slots is false)
//                         var -= lr * grad / (sqrt(accum) + epsilon)
//
// The SparseApply* ops take the gradient of some rows only: `indices` is a
// vector of rows of var and grad has shape [indices.size] + var.shape[1:];
// the formula above runs on those rows of var and of every slot, in the
// order of indices, and every other row stays as it was (so a row's
// momentum or RMSProp average does not move while no gradient reaches it,
// as in TensorFlow). An index out of range fails the step before any row
// changes. A row named twice is updated twice; the optimizers sum
// duplicates first (graph/nn/optimizers.h).
//
// use_locking is accepted for TensorFlow's signature; the CPU kernels always
// hold the Vars' mutexes while updating (kernels/cpu/training_ops.cc).
// The hyper-parameters are scalars; every slot (accum, m, v, ms, mom) must already be
// initialised and of var's shape, else the step fails naming the node.
//
//   auto w = Variable(s, {10});
//   ApplyGradientDescent(s, w, 0.1f, grad);
#pragma once

#include <string>

#include "graph/op_builder.h"

namespace tact {

Output ApplyGradientDescent(const Scope& s, Input var, Input alpha, Input delta,
                            bool use_locking = false);
Output ApplyMomentum(const Scope& s, Input var, Input accum, Input lr, Input grad, Input momentum,
                     bool use_locking = false, bool use_nesterov = false);
Output ApplyAdam(const Scope& s, Input var, Input m, Input v, Input beta1_power, Input beta2_power,
                 Input lr, Input beta1, Input beta2, Input epsilon, Input grad,
                 bool use_locking = false);

Output ApplyRMSProp(const Scope& s, Input var, Input ms, Input mom, Input lr, Input rho,
                    Input momentum, Input epsilon, Input grad, bool use_locking = false);
Output ApplyAdagrad(const Scope& s, Input var, Input accum, Input lr, Input grad,
                    bool use_locking = false, bool update_slots = true);
Output ApplyAdagradV2(const Scope& s, Input var, Input accum, Input lr, Input epsilon, Input grad,
                      bool use_locking = false, bool update_slots = true);

Output SparseApplyMomentum(const Scope& s, Input var, Input accum, Input lr, Input grad,
                           Input indices, Input momentum, bool use_locking = false,
                           bool use_nesterov = false);
Output SparseApplyRMSProp(const Scope& s, Input var, Input ms, Input mom, Input lr, Input rho,
                          Input momentum, Input epsilon, Input grad, Input indices,
                          bool use_locking = false);
Output SparseApplyAdagrad(const Scope& s, Input var, Input accum, Input lr, Input grad,
                          Input indices, bool use_locking = false, bool update_slots = true);
Output SparseApplyAdagradV2(const Scope& s, Input var, Input accum, Input lr, Input epsilon,
                            Input grad, Input indices, bool use_locking = false,
                            bool update_slots = true);

// `tensor` unchanged if every element is finite; otherwise the step fails
// with InvalidArgument "<message> : Tensor had NaN values" (or "Inf").
Output CheckNumerics(const Scope& s, Input tensor, const std::string& message);

}  // namespace tact

// Learning-rate schedules: a rate that follows the global step, as a
// scalar tensor to give an optimizer (Optimizer::WithLearningRate), as
// TensorFlow 1's tf.train.exponential_decay / piecewise_constant and
// Keras's ExponentialDecay / PiecewiseConstantDecay compute it:
//
//   Output step = GlobalStep(s);
//   auto lr = ExponentialDecay(s, 0.1, step, /*decay_steps=*/1000, 0.96, /*staircase=*/true);
//   ApplyGradients(s, Optimizer::Adam(0).WithLearningRate(*lr), gv, step, false);
//
// The rate is computed from the step's value of global_step, read before
// ApplyGradients increments it, so step k trains at the rate of step k on
// every device and after every restore (global_step is checkpointed).
// `global_step` is an int64 (or int32) scalar; `dtype` is the variables'
// (float or double). Bad arguments are InvalidArgument naming them, also
// recorded in the scope.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/op_builder.h"

namespace tact {

// initial * decay_rate ^ (global_step / decay_steps); with staircase, the
// exponent is floored, so the rate drops once every decay_steps steps.
// initial finite and >= 0, decay_steps >= 1, decay_rate finite and > 0.
StatusOr<Output> ExponentialDecay(const Scope& scope, double initial, Output global_step,
                                  int64_t decay_steps, double decay_rate, bool staircase = false,
                                  DataType dtype = DT_FLOAT);

// values[0] while global_step <= boundaries[0], values[i] while
// boundaries[i-1] < global_step <= boundaries[i], values.back() after the
// last boundary. Boundaries strictly increasing; one value more than
// boundaries; every value finite and >= 0.
StatusOr<Output> PiecewiseConstantDecay(const Scope& scope, Output global_step,
                                        const std::vector<int64_t>& boundaries,
                                        const std::vector<double>& values,
                                        DataType dtype = DT_FLOAT);

}  // namespace tact

// Gradient clipping by the global norm (TensorFlow's
// tf.clip_by_global_norm, PyTorch's clip_grad_norm_): every gradient is
// scaled by clip_norm / max(global_norm, clip_norm), where global_norm is
// the L2 norm of all the gradients taken as one vector. So the update's
// direction is kept and only a step longer than clip_norm is shortened.
//
//   auto clipped = ClipByGlobalNorm(s, grads, 5.0);
//   // clipped->grads[i] replaces grads[i]; clipped->global_norm, the norm
//   // before clipping, can be fetched to watch for exploding gradients.
//
// A non-finite global norm (a NaN or Inf in any gradient) makes every
// clipped gradient NaN, as in TensorFlow, so that CheckNumerics
// (ApplyGradients' check_numerics) stops the step.
#pragma once

#include <vector>

#include "graph/op_builder.h"

namespace tact {

struct ClippedGradients {
  std::vector<Output> grads;
  Output global_norm;
};

// InvalidArgument (also recorded in the scope) for no gradients, an empty
// one, gradients of different dtypes (float or double), or a clip_norm
// that is not a finite number > 0.
StatusOr<ClippedGradients> ClipByGlobalNorm(const Scope& scope, const std::vector<Output>& grads,
                                            double clip_norm);

}  // namespace tact

// Builder functions for clipping values (TensorFlow's tf.clip_by_value).
//
//   auto y = ClipByValue(s, x, -1.0f, 1.0f);   // every element into [-1, 1]
//
// ClipByGlobalNorm, which rescales a list of gradients, is a layer on the
// builder API (graph/nn/clipping.h), not an op.
#pragma once

#include "graph/op_builder.h"

namespace tact {

// min(max(t, clip_value_min), clip_value_max), element-wise; each bound is a
// scalar or of t's shape. NaN stays NaN. The gradient goes to t where it
// lies inside the bounds, and to the bound it was clipped to elsewhere.
// Real number types.
Output ClipByValue(const Scope& scope, Input t, Input clip_value_min, Input clip_value_max);

}  // namespace tact

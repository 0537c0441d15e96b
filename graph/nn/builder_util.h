// What the builders of graph/nn (initializers, optimizers, schedules,
// clipping) share: a scalar constant of the model's float type, and
// recording an error in the scope as it is returned.
#pragma once

#include "graph/scope.h"

namespace tact::nn_util {

// `v` as a float scalar, or a double one when `dtype` is DT_DOUBLE.
inline Tensor ScalarOf(DataType dtype, double v) {
  return dtype == DT_DOUBLE ? Tensor::Scalar<double>(v)
                            : Tensor::Scalar<float>(static_cast<float>(v));
}

// Records `s` in `scope` (its graph can then not be built) and returns it.
inline Status Fail(const Scope& scope, Status s) {
  scope.UpdateStatus(s);
  return s;
}

}  // namespace tact::nn_util

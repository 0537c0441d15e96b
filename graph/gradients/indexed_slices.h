// The sparse form of a gradient (TensorFlow's IndexedSlices): the gradient
// of a variable read only through Gather (an embedding) is zero but in the
// rows the Gather picked. Here gradients are plain tensors, so Gather's
// gradient is the dense UnsortedSegmentSum(values, indices, rows) of those
// slices (graph/gradients/nn_grad.cc); whoever can use the slices (the
// optimizers' sparse updates, graph/nn/optimizers.h) looks through it, and
// the dense tensor is then never computed.
//
//   IndexedSlices slices;
//   if (AsIndexedSlices(grads[0], table, &slices)) {
//     ScatterSub(s, table, slices.indices, Mul(s, slices.values, 0.1f));
//   }
#pragma once

#include "graph/scope.h"

namespace tact {

struct IndexedSlices {
  Output values;   // indices.shape + var.shape[1:]
  Output indices;  // int32 or int64, any shape; all in [0, var.shape[0])
};

// True, filling `slices`, if `grad` is the gradient Gather gives `var`: an
// UnsortedSegmentSum whose segment ids are the indices of a Gather whose
// params are `var` (directly or through Identity). Those ids were checked
// against var's rows by the Gather itself, so the slices hold exactly what
// the dense gradient holds. False for any other gradient, such as the sum
// of Gather's with another consumer's (then only the dense form exists).
bool AsIndexedSlices(const Output& grad, const Output& var, IndexedSlices* slices);

}  // namespace tact

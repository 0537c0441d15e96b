// TensorArray: a per-step array of tensors, written and read by index. A
// loop's gradient keeps each iteration's values in one (the forward loop
// writes entry i in iteration i, the gradient loop reads them back in
// reverse: graph/gradients/loop_grad.h), and a user's loop can gather its
// results in one.
//
// The array lives as long as the step holds its handle. The int32 `flow`
// orders the accesses: a Read that takes a Write's flow_out runs after it,
// and a flow that leaves a loop carries all its Writes. (TensorFlow's flow
// is a float; an int32 one carries no gradient, so differentiation never
// walks into the array.)
#pragma once

#include "graph/op_builder.h"

namespace tact {

struct TensorArrayOutputs {
  Output handle;  // Ref(string)
  Output flow;    // int32
};
// An empty array of `dtype` elements; `size` entries to start with (it
// grows on a Write past its end).
TensorArrayOutputs TensorArray(const Scope& scope, Input size, DataType dtype);
// Sets entry `index`; returns the flow that follows the write.
Output TensorArrayWrite(const Scope& scope, Input handle, Input index, Input value, Input flow_in);
// Entry `index`, which must have been written.
Output TensorArrayRead(const Scope& scope, Input handle, Input index, Input flow_in, DataType dtype);

}  // namespace tact

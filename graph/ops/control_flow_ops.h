// The control-flow primitives of paper 4.4, as TensorFlow defines them.
// Conditionals and loops are built from them (graph/ops/cond.h,
// graph/ops/while_loop.h); the executor gives them their meaning:
//
//  - Switch forwards `data` to output_true or output_false, as `pred` says;
//    the other output is dead. A node with a dead input does not run and
//    its outputs are dead too, so the untaken branch costs nothing.
//  - Merge forwards its first live input (and its index), so the two
//    branches of a conditional meet again. It is dead only if every input
//    is.
//  - Enter moves a value into a loop's frame (frame_name); a constant one
//    (a loop invariant) reaches every iteration, others only the first.
//  - NextIteration moves a value to the next iteration of its frame; the
//    one edge into a Merge from a NextIteration closes the loop's cycle.
//  - LoopCond marks the loop's predicate; Exit takes a value out of the
//    frame once the loop is done.
#pragma once

#include <string>
#include <vector>

#include "graph/op_builder.h"

namespace tact {

struct SwitchOutputs {
  Output output_false;
  Output output_true;
};
SwitchOutputs Switch(const Scope& scope, Input data, Input pred);

struct MergeOutputs {
  Output output;
  Output value_index;  // int32: which input was live
};
MergeOutputs Merge(const Scope& scope, const std::vector<Input>& inputs);

// At most `parallel_iterations` iterations of the frame run at once. A
// reference (a Variable's output) enters as a reference (RefEnter), so the
// loop's consumers read it as it is in their iteration.
Output Enter(const Scope& scope, Input data, const std::string& frame_name,
             bool is_constant = false, int parallel_iterations = 10);
Output Exit(const Scope& scope, Input data);
Output NextIteration(const Scope& scope, Input data);
Output LoopCond(const Scope& scope, Input pred);

// Switch, Merge, (Ref)Enter, Exit, NextIteration or LoopCond: the executor runs a
// graph holding any of them with frames and dead tensors.
bool IsControlFlowOp(const std::string& op);

}  // namespace tact

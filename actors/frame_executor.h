// The executor for graphs with control flow (paper 4.4): Switch, Merge,
// Enter, Exit, NextIteration and LoopCond, with dead tensors and frames.
// Executor::Create picks it for any graph holding one of those ops; a
// straight-line graph keeps the plain executor and pays nothing for this.
//
// Every value carries a tag: the frame instance it belongs to (a loop,
// once per iteration of the enclosing loop) and its iteration in it. Each
// live iteration keeps its own pending counts, dead counts and input slots,
// sized to its frame's nodes; at most `parallel_iterations` (an attr of the
// frame's Enter nodes) are live at once, and an iteration is freed once it
// and every iteration before it has nothing left to run.
//
// Dead tensors: an output a Switch did not take is dead. A node with a dead
// input (data or control) does not run and its outputs are dead. A Merge
// runs on its first live input, or is dead once every input it expects in
// its iteration came dead. A dead NextIteration input ends the loop (no
// next iteration); a loop's Exit that never saw a live value delivers a dead
// one when its frame is done, so a loop in an untaken branch is dead too.
// Fetching a dead tensor is an error naming the node.
#pragma once

#include <memory>

#include "actors/executor.h"

namespace tact {

// Checks the frames (every node reached from one frame only, Exits inside
// a loop, only Merges fed by NextIteration or by a non-constant Enter of a
// loop) and builds the kernels; errors name the node.
StatusOr<std::unique_ptr<Executor>> CreateFrameExecutor(std::shared_ptr<const Graph> graph,
                                                        Device* device);

}  // namespace tact

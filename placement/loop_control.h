// Distributed loop control (paper 4.4): when a loop's nodes are placed on
// several devices, each device must know when to start and when to end
// each iteration without asking the master. Partition() calls this after
// splitting the graph; it changes nothing in a graph without control flow.
//
// For each loop frame spanning devices, every partition that holds a node
// of the frame, or a _Recv of a tensor from it, gets a small loop of its
// own in that frame:
//
//   Const 0 -> Enter -> Merge -> Switch(pred: _Recv of the LoopCond) -> Identity -> NextIteration
//                         ^----------------------------------------------------------'
//
// and the partition of the frame's LoopCond gets a _Send of the LoopCond's
// value to each of them, every iteration. A partition's control loop thus
// starts an iteration exactly when the real loop does, and stops when its
// predicate turns false; each of its _Recvs in the frame waits on the
// control loop's Merge, so it runs once per iteration (the last one too,
// where what arrives is dead), except a _Recv of a loop's back edge (a
// NextIteration's value on another device), which waits on the control
// loop's NextIteration: it runs in every iteration but the first, as long
// as the loop goes on; and a _Recv of a loop variable's first value (a
// non-constant Enter's), which waits on the control loop's Enter and runs
// in the first iteration only. The _Send/_Recv keys carry the frame and the
// iteration (actors/frame_executor.h), so each iteration's transfer meets
// its own.
//
// In a graph with control flow every partitioner-made _Recv is marked
// may_be_dead: a tensor from a branch a Switch did not take crosses devices
// as a dead one.
//
// Not supported (a clear error naming the frame): a loop inside a loop
// whose frame spans devices.
#pragma once

#include "placement/partitioner.h"

namespace tact {

Status AddLoopControl(const Graph& graph, const PartitionOptions& options, PartitionResult* result);

}  // namespace tact

// The frames of a graph with control flow (paper 4.4): the root, and one
// per loop (the frame_name of its Enter nodes, within the frame those read
// from). A node runs in the frame of its inputs; an Enter's consumers run
// in the loop it enters, an Exit's in the frame around its loop. The
// executor (actors/frame_executor.h) and the partitioner's loop control
// (placement/loop_control.h) both start from this.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"

namespace tact {

struct FrameDesc {
  std::string name;  // "" for the root
  int parent = -1;
  int parallel_iterations = 1;
  bool is_loop = false;          // it holds a NextIteration
  Node* loop_cond = nullptr;     // its LoopCond, if it has one
};

struct ControlFlowInfo {
  std::vector<FrameDesc> frames;  // [0] is the root
  std::vector<int> frame_of;      // by node id: the frame it runs in (-1: no node)
  std::vector<int> child_frame;   // by node id: the frame an Enter enters (-1 otherwise)

  // The frame `node`'s outputs are in: an Enter's child, an Exit's
  // parent, anyone else's own.
  int OutputFrame(const Node* node) const;
};

bool IsEnterOp(const std::string& op);  // Enter or RefEnter

// "the root frame" (frame 0) or "loop frame '<name>'", for errors.
std::string DescribeFrame(int frame, const std::string& name);

// Errors name the node: one with inputs from two frames, an Exit or a
// NextIteration outside a loop, parallel_iterations below 1, a node no root
// reaches.
StatusOr<ControlFlowInfo> BuildControlFlowInfo(const Graph& graph);

}  // namespace tact

// Gradients through WhileLoop (paper 4.4 and 4.1), as a loop that runs the
// forward loop's iterations backwards.
//
// At gradient time the forward loop gets two more loop variables: a counter
// k, and a flow that writes each iteration's loop variables into
// TensorArrays at index k (graph/ops/tensor_array_ops.h). These are the
// forward values each iteration needs, kept. The gradient loop counts j
// from the number of iterations N down to 0; in iteration j it reads the
// loop variables of forward iteration j back, builds a copy of the forward
// body on them (so the body's intermediates are recomputed, not kept: a
// loop of many iterations keeps only its loop variables), and
// differentiates that copy: the loop variables' gradients are its loop
// variables, and each loop invariant's gradient is summed over iterations
// in one more. Only what the gradient is fetched for runs; a forward Run
// that fetches none skips the writes.
//
// Not supported (clear errors): a loop in the body of the loop whose
// gradient is asked for, a body that reads the condition's values or holds
// a stateful op, and second derivatives through a loop.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "graph/scope.h"

namespace tact {

// A WhileLoop as the graph holds it (graph/ops/while_loop.h).
struct LoopStructure {
  struct Var {
    Node* enter = nullptr;
    Node* merge = nullptr;
    Node* loop_switch = nullptr;
    Node* exit = nullptr;
    Node* body_input = nullptr;  // the Identity on the Switch's true side
    Node* next_iteration = nullptr;
  };
  std::string frame;
  int parallel_iterations = 10;
  Node* loop_cond = nullptr;
  std::vector<Var> vars;
  std::vector<Node*> invariants;  // the frame's constant Enters
};

// The loop of `loop_cond`; InvalidArgument naming it if its nodes are not
// laid out as WhileLoop lays them.
StatusOr<LoopStructure> FindLoop(const Graph& graph, Node* loop_cond);

// Adds the gradient loop of `loop`, given the gradient of each loop
// variable's Exit (an empty Output where none reaches y). Sets, for each
// Enter of the loop through which a gradient flows (a loop variable's or an
// invariant's), the gradient of that Enter's input.
Status AddLoopGradient(const Scope& scope, const LoopStructure& loop,
                       const std::vector<Output>& exit_grads, std::map<int, Output>* enter_grads);

}  // namespace tact

// WhileLoop: a loop (paper 4.4), built from Enter, Merge, Switch, LoopCond,
// NextIteration and Exit in a frame of its own.
//
//   // i = 0; x = x0; while (i < 50) { x = tanh(W x); i += 1; }
//   std::vector<Output> r = WhileLoop(
//       s, {Const(s, 0), x0},
//       [](const Scope& c, const std::vector<Output>& v) { return Less(c, v[0], 50); },
//       [&](const Scope& b, const std::vector<Output>& v) {
//         return std::vector<Output>{Add(b, v[0], 1), Tanh(b, MatMul(b, W, v[1]))};
//       });
//
// `cond_fn` builds the predicate from the loop variables' current values,
// `body_fn` their next values. Both may read any tensor built before the
// loop (it enters as a loop invariant, a constant Enter). The result is
// the loop variables' values once the predicate is false. At most
// `parallel_iterations` iterations run at once; each loop variable keeps
// its dtype and shape from one iteration to the next (a body value whose
// static shape contradicts the loop variable's is an error).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "graph/op_builder.h"

namespace tact {

using LoopCondFn = std::function<Output(const Scope& cond, const std::vector<Output>& vars)>;
using LoopBodyFn =
    std::function<std::vector<Output>(const Scope& body, const std::vector<Output>& vars)>;

struct WhileOptions {
  std::string name = "while";  // the scope, and the frame's name
  int parallel_iterations = 10;
};

// Errors (no loop variable, a predicate that is not a bool scalar, a body
// that returns other counts, dtypes or shapes) are recorded in the scope
// and name the loop; the result is then empty.
std::vector<Output> WhileLoop(const Scope& scope, const std::vector<Output>& loop_vars,
                              const LoopCondFn& cond_fn, const LoopBodyFn& body_fn,
                              const WhileOptions& options = {});

}  // namespace tact

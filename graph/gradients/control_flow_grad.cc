// Gradients through conditionals (paper 4.4 and 4.1). The gradient of a
// Cond is a Cond run backwards: each Merge's gradient goes back through
// a Switch to the branch that was taken (as its value_index says), and each
// Switch's gradients meet again in a Merge. A gradient op on the untaken
// branch sees a dead input and does not run, like the forward op it
// mirrors. Where a Switch output has no gradient of its own, the walker
// gives it ZerosLike of that output, which is live exactly when that
// output was: so each gradient Merge has one live input.
#include "graph/gradients/grad_registry.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {
using Grads = std::vector<Output>;

// Input i of the Merge gets the gradient when it was the live one.
Status MergeGrad(const Scope& s, Node* op, const Grads& g, Grads* out) {
  const Output value_index(op, 1);
  for (int i = 0; i < op->num_inputs(); ++i) {
    out->push_back(Switch(s, g[0], Equal(s, value_index, i)).output_true);
  }
  return s.status();
}

// data gets whichever output's gradient is live; pred gets none.
Status SwitchGrad(const Scope& s, Node*, const Grads& g, Grads* out) {
  out->push_back(Merge(s, {g[0], g[1]}).output);
  out->push_back(Output());
  return s.status();
}

}  // namespace

REGISTER_GRADIENT_OP("Merge", MergeGrad);
REGISTER_GRADIENT_OP("Switch", SwitchGrad);
REGISTER_NO_GRADIENT_OP("LoopCond");

}  // namespace tact

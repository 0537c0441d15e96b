// Gradient registry (paper 4.1): for each op type, the function that adds
// the nodes computing the gradient of the op's inputs from the gradients of
// its outputs. AddSymbolicGradients (gradients.h) looks them up while it
// walks the graph backwards.
//
//   Status MulGrad(const Scope& s, Node* op, const std::vector<Output>& dy,
//                  std::vector<Output>* dx);
//   REGISTER_GRADIENT_OP("Mul", MulGrad);
//   REGISTER_NO_GRADIENT_OP("Shape");   // its output does not depend smoothly on x
//
// A gradient function gets one gradient per output of `op` (zeros for an
// output that does not reach y, never an empty Output) and must push one
// entry per input of `op`; an empty Output means "no gradient for this
// input" (integer, shape or index arguments). Registration happens in static
// initialisers; lookups after main() starts are thread-safe.
#pragma once

#include <string>
#include <vector>

#include "graph/scope.h"

namespace tact {

using GradFunc = Status (*)(const Scope& scope, Node* op, const std::vector<Output>& grad_outputs,
                            std::vector<Output>* grad_inputs);

class GradOpRegistry {
 public:
  static GradOpRegistry* Global();
  // `fn` == nullptr registers the op as having no gradient. Returns true so
  // the macros can use it in a static initialiser.
  bool Register(const std::string& op, GradFunc fn);
  // NotFound naming the op if it has no registration at all. `*fn` is set to
  // nullptr for an op registered with no gradient.
  Status Lookup(const std::string& op, GradFunc* fn) const;
};

#define TACT_GRAD_CONCAT_INNER(a, b) a##b
#define TACT_GRAD_CONCAT(a, b) TACT_GRAD_CONCAT_INNER(a, b)
#define REGISTER_GRADIENT_OP(name, fn)                                         \
  static const bool TACT_GRAD_CONCAT(tact_grad_registered_, __COUNTER__) = \
      ::tact::GradOpRegistry::Global()->Register(name, fn)
#define REGISTER_NO_GRADIENT_OP(name) REGISTER_GRADIENT_OP(name, nullptr)

}  // namespace tact

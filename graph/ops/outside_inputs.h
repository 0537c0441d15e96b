// How a conditional's branch or a loop's body reads what was built before
// it (graph/ops/cond.h, graph/ops/while_loop.h): the builder functions a
// user passes build plain ops, and may read any tensor of the graph; the
// edges that cross into the branch or body are rewired afterwards through
// a Switch (a branch) or a constant Enter (a loop body), as TensorFlow's
// control-flow contexts do.
#pragma once

#include <functional>
#include <string>

#include "graph/scope.h"

namespace tact {

struct OutsideInputs {
  int first_inside_id = 0;  // nodes with ids from here on are inside
  // The nodes rewired: ids in [scan_from, scan_to) (-1: every later one).
  int scan_from = 0;
  int scan_to = -1;
  Node* pivot = nullptr;  // what a rewired node without inputs waits for
  // The inside copy of an outside output (a Switch's port, an Enter); the
  // caller makes one per output and returns it again after.
  std::function<Output(const Output& outside)> bring_in;
  bool outside_control_allowed = true;
  std::string what;  // "WhileLoop 'w'", for errors
};

// Rewires every data input that an inside node takes from an outside one
// through `bring_in`, and gives inside nodes without inputs a control edge
// from the pivot. An outside control input is an error unless allowed.
Status RewireOutsideInputs(const Scope& scope, const OutsideInputs& spec);

// `make`, called at most once per outside output: later calls return the
// first copy.
std::function<Output(const Output&)> OncePerOutput(std::function<Output(const Output&)> make);

// `out`, or its inside copy if it was built outside (a branch or body
// that returns a tensor it did not build).
Output InsideOutput(const Output& out, const OutsideInputs& spec);

}  // namespace tact

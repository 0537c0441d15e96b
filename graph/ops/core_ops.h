// Builder functions for the ops every graph uses: constants, placeholders
// (fed at Run time, paper 2), Identity and NoOp.
#pragma once

#include "graph/op_builder.h"

namespace tact {

// A value fed at Run time; `shape` may be partial or unknown.
Output Placeholder(const Scope& scope, DataType dtype,
                   const PartialTensorShape& shape = PartialTensorShape::Unknown());
Output Identity(const Scope& scope, Input x);
// Does nothing; its use is to gather control dependencies into one target.
Node* NoOp(const Scope& scope);
// The gradient does not flow through it (paper 4.1): Identity otherwise.
Output StopGradient(const Scope& scope, Input x);

}  // namespace tact

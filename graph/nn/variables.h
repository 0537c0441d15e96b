// Variables with initializers, and the per-graph list of them that
// InitAllVariables, checkpoints, fingerprints and CountParameters read
// (TensorFlow's GLOBAL_VARIABLES / TRAINABLE_VARIABLES collections).
//
//   Scope s = Scope::NewRootScope();
//   Output w = VariableWithInit(s, "w", {784, 10}, GlorotUniformInit(1));
//   Node* init = InitAllVariables(s.WithOpName("init"));
//   // session->Run({}, {}, {"init"}) assigns every recorded variable.
//
// The list lives in a side table keyed by the scope's Graph (all scopes of
// one root share it) and dies with the graph. Not thread-safe per graph,
// like the Scope itself; different graphs may be built on different threads.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "graph/op_builder.h"

namespace tact {

// Makes a variable's initial value of `shape` and `dtype`, adding its nodes
// under `scope`.
using Initializer =
    std::function<Output(const Scope& scope, const TensorShape& shape, DataType dtype)>;

struct VariableInfo {
  std::string name;  // the Variable node's name: "dense/kernel"
  TensorShape shape;
  DataType dtype = DT_INVALID;
  Output var;             // the Variable's ref output
  Output initializer;     // the Assign that sets the initial value
  bool trainable = true;  // false for optimizer slots and global_step
};

// A Variable named `name` under scope's prefix (made unique: "w", "w_1"),
// an Assign "<name>/Assign" of initializer's value (built under
// "<name>/Initializer/"), both recorded for InitAllVariables. On a scope
// error returns an empty Output and records nothing.
Output VariableWithInit(const Scope& scope, const std::string& name, const TensorShape& shape,
                        const Initializer& initializer, DataType dtype = DT_FLOAT,
                        bool trainable = true);

// One NoOp whose control inputs are every recorded initializer of the
// scope's graph so far: running it initialises every variable.
Node* InitAllVariables(const Scope& scope);

// In creation order.
std::vector<VariableInfo> AllVariables(const Scope& scope);
std::vector<VariableInfo> TrainableVariables(const Scope& scope);

}  // namespace tact

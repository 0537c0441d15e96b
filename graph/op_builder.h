// OpBuilder: how op functions add a node to a Scope. It turns constant
// Inputs into Const nodes, infers type and length attrs from the inputs
// (T from the dtype of x, N from the length of a list), and applies the
// scope's name, device, colocation and control dependencies.
//
//   Output Add(const Scope& s, Input x, Input y) {
//     return OpBuilder(s, "Add").Input(x).Input(y).Finalize();
//   }
#pragma once

#include <string>
#include <vector>

#include "graph/scope.h"

namespace tact {

class OpBuilder {
 public:
  OpBuilder(const Scope& scope, std::string op);
  OpBuilder& Input(const ::tact::Input& x);
  OpBuilder& InputList(const std::vector<::tact::Input>& xs);
  OpBuilder& Attr(const std::string& name, AttrValue value);
  OpBuilder& Attr(const std::string& name, int64_t v) { return Attr(name, AttrValue::Int(v)); }
  OpBuilder& Attr(const std::string& name, int v) { return Attr(name, AttrValue::Int(v)); }
  OpBuilder& Attr(const std::string& name, float v) { return Attr(name, AttrValue::Float(v)); }
  OpBuilder& Attr(const std::string& name, bool v) { return Attr(name, AttrValue::Bool(v)); }
  OpBuilder& Attr(const std::string& name, DataType v) { return Attr(name, AttrValue::Type(v)); }
  OpBuilder& Attr(const std::string& name, const char* v) { return Attr(name, AttrValue::String(v)); }
  OpBuilder& Attr(const std::string& name, const std::string& v) { return Attr(name, AttrValue::String(v)); }
  OpBuilder& Attr(const std::string& name, std::vector<int64_t> v) {
    return Attr(name, AttrValue::IntList(std::move(v)));
  }

  // Adds the node; on error records it in the scope and returns nullptr.
  Node* Finalize();
  // Finalize(), then output `i` (empty on error).
  Output FinalizeOutput(int i = 0);
  // Finalize(), then every output.
  std::vector<Output> FinalizeOutputs();

 private:
  struct Arg {
    std::vector<Output> outputs;
    bool is_list = false;
  };
  Output Resolve(const ::tact::Input& x);

  Scope scope_;
  std::string op_;
  std::vector<Arg> args_;
  AttrMap attrs_;
};

// A Const node holding `value` (named "Const" under the scope).
Output Const(const Scope& scope, const Tensor& value);

}  // namespace tact

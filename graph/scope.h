// Scope: where the builder API puts new nodes, and with what name prefix,
// device, colocation and control dependencies. Every op function takes a
// Scope first and returns the Output(s) of the node it adds:
//
//   Scope s = Scope::NewRootScope();
//   auto b = Variable(s, {100});
//   auto W = Variable(s, {784, 100});
//   auto x = Placeholder(s, DT_FLOAT);
//   auto relu = Relu(s, Add(s, MatMul(s, x, W), b));
//   StatusOr<GraphDef> def = s.ToGraphDef();
//
// Errors do not throw: the first one is recorded in the scope (shared by
// every scope derived from the same root), later op functions return an
// empty Output, and ToGraphDef() returns that first error.
//
// Not thread-safe: build a graph from one thread.
#pragma once

#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace tact {

// One output of a node: "node:port".
struct Output {
  Node* node = nullptr;
  int index = 0;

  Output() = default;
  Output(Node* n, int i = 0) : node(n), index(i) {}  // NOLINT: a node's first output
  DataType type() const { return node ? node->output_type(index) : DT_INVALID; }
  // "name:port" ("name" for port 0).
  std::string name() const;
  bool ok() const { return node != nullptr; }
};

// An op function's argument: an Output, or a constant that becomes a Const
// node (Add(s, x, 1.0f)). Integer literals become int32, as in TensorFlow.
class Input {
 public:
  Input(Output o) : output_(o) {}  // NOLINT
  Input(Node* n) : output_(n) {}   // NOLINT
  Input(const Tensor& t) : constant_(t) {}  // NOLINT
  Input(float v) : constant_(Tensor::Scalar<float>(v)) {}       // NOLINT
  Input(double v) : constant_(Tensor::Scalar<double>(v)) {}     // NOLINT
  Input(int32_t v) : constant_(Tensor::Scalar<int32_t>(v)) {}   // NOLINT
  Input(int64_t v) : constant_(Tensor::Scalar<int64_t>(v)) {}   // NOLINT
  Input(bool v) : constant_(Tensor::Scalar<bool>(v)) {}         // NOLINT
  Input(const char* v) : constant_(Tensor::Scalar<std::string>(v)) {}  // NOLINT
  Input(std::initializer_list<float> v) : constant_(Tensor::FromVector<float>(v)) {}  // NOLINT
  Input(std::initializer_list<int32_t> v) : constant_(Tensor::FromVector<int32_t>(v)) {}  // NOLINT

  bool is_constant() const { return constant_.IsInitialized(); }
  const Output& output() const { return output_; }
  const Tensor& constant() const { return constant_; }

 private:
  Output output_;
  Tensor constant_;
};

class Scope {
 public:
  static Scope NewRootScope();
  // A root scope that adds to `graph` (one read from a GraphDef, say): new
  // nodes get names the graph does not hold yet.
  static Scope FromGraph(std::shared_ptr<Graph> graph);

  // Names under "parent/child/"; the child name is made unique.
  Scope NewSubScope(const std::string& child) const;
  // The next node gets exactly this name (within the prefix).
  Scope WithOpName(const std::string& name) const;
  // Nodes get this requested device (a full or partial device name).
  Scope WithDevice(const std::string& device) const;
  // Nodes must be placed with `node` (paper 4.3 colocation).
  Scope ColocateWith(const Output& node) const;
  // Nodes run only after every one of `deps` (control edges).
  Scope WithControlDependencies(const std::vector<Output>& deps) const;

  Graph* graph() const;
  std::shared_ptr<Graph> shared_graph() const;
  bool ok() const { return status_->ok(); }
  Status status() const { return *status_; }
  // Records `s` if it is the first error.
  void UpdateStatus(const Status& s) const;

  // prefix + name, made unique in the graph ("Add", "Add_1", ...).
  std::string GetUniqueName(const std::string& base) const;
  // The name the next node of `op` gets: WithOpName's, or a unique one.
  std::string NodeName(const std::string& op) const;
  // What its nodes' names start with: "" or "a/b/".
  const std::string& prefix() const { return prefix_; }
  const std::string& device() const { return device_; }
  const std::vector<std::string>& colocation() const { return colocation_; }
  const std::vector<Node*>& control_deps() const { return control_deps_; }

  // The first error, or the graph as a GraphDef.
  StatusOr<GraphDef> ToGraphDef() const;

 private:
  Scope() = default;
  std::shared_ptr<Graph> graph_;
  std::shared_ptr<Status> status_;
  std::shared_ptr<std::map<std::string, int>> name_counts_;
  std::string prefix_;  // "" or "a/b/"
  std::string op_name_;
  std::string device_;
  std::vector<std::string> colocation_;  // "loc:@node"
  std::vector<Node*> control_deps_;
};

}  // namespace tact

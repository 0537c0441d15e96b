// Graph: nodes (an op with attrs) joined by data edges (node:port ->
// node:port) and control edges (paper 2). Built from a GraphDef or by the
// builder API (scope.h); converted back with ToGraphDef().
//
// Node ids follow construction order, which is also the tie-break of
// TopologicalOrder(): the executor's ready queue and the placer both walk
// nodes in an order the user can predict.
//
// Not thread-safe for mutation; concurrent const use is fine.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "graph/graph_def.h"
#include "graph/node_properties.h"

namespace tact {

class Node;

struct Edge {
  static constexpr int kControlSlot = -1;
  int id = -1;
  Node* src = nullptr;
  int src_output = 0;  // kControlSlot for a control edge
  Node* dst = nullptr;
  int dst_input = 0;   // kControlSlot for a control edge
  bool IsControlEdge() const { return src_output == kControlSlot; }
};

class Node {
 public:
  int id() const { return id_; }
  const std::string& name() const { return props_->def.name; }
  const std::string& op() const { return props_->def.op; }
  const NodeDef& def() const { return props_->def; }
  const OpDef& op_def() const { return *props_->op_def; }
  const AttrMap& attrs() const { return props_->def.attrs; }
  const std::shared_ptr<const NodeProperties>& properties() const { return props_; }

  int num_inputs() const { return static_cast<int>(props_->input_types.size()); }
  int num_outputs() const { return static_cast<int>(props_->output_types.size()); }
  DataType input_type(int i) const { return props_->input_types[i]; }
  DataType output_type(int i) const { return props_->output_types[i]; }
  bool IsStateful() const { return props_->op_def->is_stateful; }

  // The device the user asked for (possibly partial or empty), and the one
  // the placer chose (empty until placed).
  const std::string& requested_device() const { return props_->def.device; }
  const std::string& assigned_device() const { return assigned_device_; }
  void set_assigned_device(std::string d) { assigned_device_ = std::move(d); }

  // Every edge into / out of this node, data and control, in the order added.
  const std::vector<const Edge*>& in_edges() const { return in_edges_; }
  const std::vector<const Edge*>& out_edges() const { return out_edges_; }
  // The data edge into input `port`, or nullptr if it is not connected.
  const Edge* input_edge(int port) const;

  // "node 'name' (op 'Op'): "
  std::string ErrorPrefix() const { return props_->ErrorPrefix(); }

  // What shape inference (shape_refiner.h) found for output `i`; unknown
  // until it has run. A reference (the placer's cost model reads it per
  // edge), valid until the shapes are set again.
  const PartialTensorShape& output_shape(int i) const {
    static const PartialTensorShape* const kUnknown = new PartialTensorShape();
    return i < static_cast<int>(output_shapes_.size()) ? output_shapes_[i] : *kUnknown;
  }
  void set_output_shapes(std::vector<PartialTensorShape> shapes) {
    output_shapes_ = std::move(shapes);
  }

 private:
  friend class Graph;
  int id_ = -1;
  std::shared_ptr<const NodeProperties> props_;
  std::string assigned_device_;
  std::vector<PartialTensorShape> output_shapes_;
  std::vector<const Edge*> in_edges_;
  std::vector<const Edge*> out_edges_;
};

class Graph {
 public:
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // Builds and validates a graph: every node's op and attrs (NodeProperties),
  // every input resolved and type-checked, no cycles outside ops that allow
  // them. Errors name the node, its op and the offending input.
  static StatusOr<std::unique_ptr<Graph>> FromGraphDef(const GraphDef& def);
  // Nodes in id order; each NodeDef's inputs rebuilt from the edges (data
  // inputs by port, then control inputs).
  GraphDef ToGraphDef() const;

  // Adds a node without edges; `def.inputs` is ignored. AlreadyExists if the
  // name is taken.
  StatusOr<Node*> AddNode(NodeDef def);
  // Adds a data edge after checking ports and dtypes (a ref output may feed
  // a plain input of its base type). An input port takes one edge.
  StatusOr<const Edge*> AddEdge(Node* src, int src_output, Node* dst, int dst_input);
  const Edge* AddControlEdge(Node* src, Node* dst);
  void RemoveEdge(const Edge* edge);
  // Removes the node and every edge touching it.
  void RemoveNode(Node* node);

  Node* FindNode(const std::string& name) const;
  // Live nodes in id order.
  std::vector<Node*> nodes() const;
  int num_nodes() const { return num_live_nodes_; }
  int num_edges() const { return num_live_edges_; }
  // One more than the largest id ever given: the size for per-node arrays.
  int num_node_ids() const { return static_cast<int>(nodes_.size()); }
  Node* node(int id) const { return nodes_[id].get(); }

  // Every input connected, and the graph acyclic (edges out of ops that
  // allow cycles are not counted).
  Status Validate() const;
  // Kahn's algorithm; among ready nodes the lowest id goes first. Linear in
  // nodes + edges when every edge goes to a higher id (graphs from the
  // builder); each edge to a lower id adds a log factor for its node.
  StatusOr<std::vector<Node*>> TopologicalOrder() const;

 private:
  std::vector<std::unique_ptr<Node>> nodes_;  // by id; null once removed
  std::vector<std::unique_ptr<Edge>> edges_;  // by id; null once removed
  std::unordered_map<std::string, Node*> by_name_;
  int num_live_nodes_ = 0;
  int num_live_edges_ = 0;
};

// True if an output of type `src` may feed an input of type `dst`.
bool TypesCompatible(DataType src, DataType dst);

}  // namespace tact

#include "graph/graph.h"

#include <algorithm>

#include "graph/printable.h"
#include "graph/topological_sort.h"

namespace tact {

const Edge* Node::input_edge(int port) const {
  for (const Edge* e : in_edges_) {
    if (e->dst_input == port) return e;
  }
  return nullptr;
}

bool TypesCompatible(DataType src, DataType dst) {
  if (src == dst) return true;
  return IsRefType(src) && !IsRefType(dst) && BaseType(src) == dst;
}

StatusOr<Node*> Graph::AddNode(NodeDef def) {
  if (by_name_.count(def.name)) {
    return errors::AlreadyExists("node '", Printable(def.name), "' is defined twice");
  }
  def.inputs.clear();
  TACT_ASSIGN_OR_RETURN(std::shared_ptr<const NodeProperties> props,
                        NodeProperties::Create(std::move(def)));
  auto node = std::make_unique<Node>();
  node->id_ = static_cast<int>(nodes_.size());
  node->props_ = std::move(props);
  Node* raw = node.get();
  by_name_[raw->name()] = raw;
  nodes_.push_back(std::move(node));
  ++num_live_nodes_;
  return raw;
}

StatusOr<const Edge*> Graph::AddEdge(Node* src, int src_output, Node* dst, int dst_input) {
  if (src_output < 0 || src_output >= src->num_outputs()) {
    return errors::InvalidArgument(dst->ErrorPrefix(), "input ", dst_input, " refers to output ", src_output,
                                   " of node '", src->name(), "', which has ",
                                   src->num_outputs(), " outputs");
  }
  if (dst_input < 0 || dst_input >= dst->num_inputs()) {
    return errors::InvalidArgument(dst->ErrorPrefix(), "has ", dst->num_inputs(), " inputs, not ",
                                   dst_input + 1);
  }
  if (dst->input_edge(dst_input) != nullptr) {
    return errors::InvalidArgument(dst->ErrorPrefix(), "input ", dst_input, " is connected twice");
  }
  const DataType st = src->output_type(src_output);
  const DataType dt = dst->input_type(dst_input);
  if (!TypesCompatible(st, dt)) {
    return errors::InvalidArgument(dst->ErrorPrefix(), "input ", dst_input, " expects ", DataTypeString(dt),
                                   " but '", src->name(), ":", src_output, "' is ",
                                   DataTypeString(st));
  }
  auto edge = std::make_unique<Edge>(Edge{static_cast<int>(edges_.size()), src, src_output, dst,
                                          dst_input});
  const Edge* raw = edge.get();
  src->out_edges_.push_back(raw);
  dst->in_edges_.push_back(raw);
  edges_.push_back(std::move(edge));
  ++num_live_edges_;
  return raw;
}

const Edge* Graph::AddControlEdge(Node* src, Node* dst) {
  for (const Edge* e : dst->in_edges_) {
    if (e->IsControlEdge() && e->src == src) return e;  // already there
  }
  auto edge = std::make_unique<Edge>(Edge{static_cast<int>(edges_.size()), src,
                                          Edge::kControlSlot, dst, Edge::kControlSlot});
  const Edge* raw = edge.get();
  src->out_edges_.push_back(raw);
  dst->in_edges_.push_back(raw);
  edges_.push_back(std::move(edge));
  ++num_live_edges_;
  return raw;
}

void Graph::RemoveEdge(const Edge* edge) {
  auto erase = [edge](std::vector<const Edge*>& v) {
    v.erase(std::remove(v.begin(), v.end(), edge), v.end());
  };
  erase(edge->src->out_edges_);
  erase(edge->dst->in_edges_);
  edges_[edge->id].reset();
  --num_live_edges_;
}

void Graph::RemoveNode(Node* node) {
  while (!node->in_edges_.empty()) RemoveEdge(node->in_edges_.back());
  while (!node->out_edges_.empty()) RemoveEdge(node->out_edges_.back());
  by_name_.erase(node->name());
  nodes_[node->id_].reset();
  --num_live_nodes_;
}

Node* Graph::FindNode(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::vector<Node*> Graph::nodes() const {
  std::vector<Node*> out;
  out.reserve(num_live_nodes_);
  for (const auto& n : nodes_) {
    if (n) out.push_back(n.get());
  }
  return out;
}

StatusOr<std::unique_ptr<Graph>> Graph::FromGraphDef(const GraphDef& def) {
  auto g = std::make_unique<Graph>();
  std::vector<Node*> added;
  added.reserve(def.nodes.size());
  for (const NodeDef& nd : def.nodes) {
    TACT_ASSIGN_OR_RETURN(Node* n, g->AddNode(nd));
    added.push_back(n);
  }
  for (size_t i = 0; i < def.nodes.size(); ++i) {
    const NodeDef& nd = def.nodes[i];
    Node* dst = added[i];
    int port = 0;
    bool seen_control = false;
    for (const std::string& input : nd.inputs) {
      StatusOr<InputRef> ref = ParseInputRef(input);
      if (!ref.ok()) return ref.status().WithPrefix(dst->ErrorPrefix());
      Node* src = g->FindNode(ref->node);
      if (src == nullptr) {
        return errors::InvalidArgument(dst->ErrorPrefix(), "input '", Printable(input),
                                       "' refers to an unknown node");
      }
      if (ref->is_control()) {
        seen_control = true;
        g->AddControlEdge(src, dst);
        continue;
      }
      if (seen_control) {
        return errors::InvalidArgument(dst->ErrorPrefix(), "data input '", Printable(input),
                                       "' comes after a control input");
      }
      if (port >= dst->num_inputs()) {
        return errors::InvalidArgument(dst->ErrorPrefix(), "expects ", dst->num_inputs(),
                                       " data inputs, but the NodeDef lists more");
      }
      TACT_RETURN_IF_ERROR(g->AddEdge(src, ref->port, dst, port).status());
      ++port;
    }
  }
  TACT_RETURN_IF_ERROR(g->Validate());
  return g;
}

GraphDef Graph::ToGraphDef() const {
  GraphDef out;
  for (const auto& n : nodes_) {
    if (!n) continue;
    NodeDef nd = n->def();
    nd.inputs.assign(n->num_inputs(), std::string());
    std::vector<std::string> control;
    for (const Edge* e : n->in_edges_) {
      if (e->IsControlEdge()) {
        control.push_back("^" + e->src->name());
      } else {
        nd.inputs[e->dst_input] =
            e->src_output == 0 ? e->src->name() : e->src->name() + ":" + std::to_string(e->src_output);
      }
    }
    // Unconnected ports (a graph under construction) are dropped, not emitted empty.
    nd.inputs.erase(std::remove(nd.inputs.begin(), nd.inputs.end(), std::string()), nd.inputs.end());
    nd.inputs.insert(nd.inputs.end(), control.begin(), control.end());
    out.nodes.push_back(std::move(nd));
  }
  return out;
}

Status Graph::Validate() const {
  for (const auto& n : nodes_) {
    if (!n) continue;
    for (int i = 0; i < n->num_inputs(); ++i) {
      if (n->input_edge(i) == nullptr) {
        return errors::InvalidArgument(n->ErrorPrefix(), "input ", i, " is not connected (",
                                       n->num_inputs(), " inputs expected)");
      }
    }
  }
  return TopologicalOrder().status();
}

StatusOr<std::vector<Node*>> Graph::TopologicalOrder() const {
  // Linear when edges go from lower to higher ids, as the builder and
  // FromGraphDef of a sorted GraphDef make them (topological_sort.h). One
  // walk over the nodes' edges, counted from the sources' side (one
  // op_def() look-up per node, not per edge), records each counted edge's
  // destination in flat arrays; the sort reads those instead of following
  // node, edge vector, Edge and destination node a second time, a cache
  // miss at each step on a graph of tens of thousands of nodes.
  const int n_ids = static_cast<int>(nodes_.size());
  std::vector<char> live(n_ids, 0);
  std::vector<int> first_out(n_ids + 1, 0);
  std::vector<int> out_dst;
  out_dst.reserve(num_live_edges_);
  for (int id = 0; id < n_ids; ++id) {
    first_out[id] = static_cast<int>(out_dst.size());
    const Node* n = nodes_[id].get();
    if (!n) continue;
    live[id] = 1;
    if (n->op_def().allows_cycles) continue;  // its out-edges are not counted
    for (const Edge* e : n->out_edges_) out_dst.push_back(e->dst->id_);
  }
  first_out[n_ids] = static_cast<int>(out_dst.size());
  const std::vector<int> ids = TopologicalSort(live, first_out, out_dst);
  if (static_cast<int>(ids.size()) != num_live_nodes_) {
    // The nodes left out are those on or behind a cycle.
    std::vector<char> placed(n_ids, 0);
    for (int id : ids) placed[id] = 1;
    std::string names;
    int listed = 0;
    for (const auto& n : nodes_) {
      if (n && !placed[n->id_] && listed < 8) {
        names += (listed++ ? ", '" : "'") + n->name() + "'";
      }
    }
    return errors::InvalidArgument("the graph has a cycle through nodes ", names,
                                   " (cycles are allowed only through NextIteration)");
  }
  std::vector<Node*> order;
  order.reserve(ids.size());
  for (int id : ids) order.push_back(nodes_[id].get());
  return order;
}

}  // namespace tact

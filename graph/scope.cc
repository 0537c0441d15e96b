#include "graph/scope.h"

namespace tact {

std::string Output::name() const {
  if (!node) return "<none>";
  return index == 0 ? node->name() : node->name() + ":" + std::to_string(index);
}

Scope Scope::NewRootScope() {
  Scope s;
  s.graph_ = std::make_shared<Graph>();
  s.status_ = std::make_shared<Status>();
  s.name_counts_ = std::make_shared<std::map<std::string, int>>();
  return s;
}

Scope Scope::FromGraph(std::shared_ptr<Graph> graph) {
  Scope s = NewRootScope();
  s.graph_ = std::move(graph);
  return s;
}

Scope Scope::NewSubScope(const std::string& child) const {
  Scope s = *this;
  s.op_name_.clear();
  s.prefix_ = GetUniqueName(child.empty() ? "scope" : child) + "/";
  return s;
}

Scope Scope::WithOpName(const std::string& name) const {
  Scope s = *this;
  s.op_name_ = name;
  return s;
}

Scope Scope::WithDevice(const std::string& device) const {
  Scope s = *this;
  s.device_ = device;
  return s;
}

Scope Scope::ColocateWith(const Output& node) const {
  Scope s = *this;
  if (node.node) s.colocation_.push_back("loc:@" + node.node->name());
  return s;
}

Scope Scope::WithControlDependencies(const std::vector<Output>& deps) const {
  Scope s = *this;
  for (const Output& d : deps) {
    if (d.node) s.control_deps_.push_back(d.node);
  }
  return s;
}

Graph* Scope::graph() const { return graph_.get(); }
std::shared_ptr<Graph> Scope::shared_graph() const { return graph_; }

void Scope::UpdateStatus(const Status& s) const {
  if (status_->ok() && !s.ok()) *status_ = s;
}

std::string Scope::GetUniqueName(const std::string& base) const {
  const std::string full = prefix_ + base;
  int& count = (*name_counts_)[full];
  std::string name = count == 0 ? full : full + "_" + std::to_string(count);
  ++count;
  // A name taken by an explicit WithOpName is skipped over.
  while (graph_->FindNode(name) != nullptr) {
    name = full + "_" + std::to_string(count++);
  }
  return name;
}

std::string Scope::NodeName(const std::string& op) const {
  return op_name_.empty() ? GetUniqueName(op) : prefix_ + op_name_;
}

StatusOr<GraphDef> Scope::ToGraphDef() const {
  if (!ok()) return *status_;
  return graph_->ToGraphDef();
}

}  // namespace tact

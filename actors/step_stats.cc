#include "actors/step_stats.h"

namespace tact {

void StepStats::Add(NodeExecStats s) {
  std::lock_guard<std::mutex> lock(mu_);
  nodes_.push_back(std::move(s));
}

std::vector<NodeExecStats> StepStats::nodes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return nodes_;
}

bool StepStats::Ran(const std::string& node_name) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const NodeExecStats& s : nodes_) {
    if (s.node_name == node_name) return true;
  }
  return false;
}

}  // namespace tact

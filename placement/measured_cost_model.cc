// MeasuredCostModel: the paper's second kind of cost model (3.2.1: "actual
// execution times and tensor sizes from previous runs"), layered over the
// static one so that a node not measured yet still has an estimate.
#include <cctype>

#include "placement/cost_model.h"

namespace tact {
namespace {

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

MeasuredCostModel::MeasuredCostModel(const Graph& graph, StaticCostOptions options)
    : base_(NewStaticCostModel(graph, std::move(options))) {}

MeasuredCostModel::MeasuredCostModel(std::unique_ptr<CostModel> base) : base_(std::move(base)) {}

void MeasuredCostModel::Record(const std::string& node_name, const std::string& device_type,
                               double seconds, const std::vector<int64_t>& output_bytes) {
  Measured& m = by_node_[node_name];
  ++num_records_;
  if (seconds >= 0) {
    const std::string type = Upper(device_type);
    Timing* t = nullptr;
    for (Timing& x : m.timings) {
      if (x.device_type == type) t = &x;
    }
    if (t == nullptr) t = &m.timings.emplace_back(Timing{type, 0, 0});
    t->total_seconds += seconds;
    ++t->count;
  }
  if (m.output_bytes.size() < output_bytes.size()) m.output_bytes.resize(output_bytes.size(), -1);
  for (size_t i = 0; i < output_bytes.size(); ++i) {
    if (output_bytes[i] >= 0) m.output_bytes[i] = output_bytes[i];
  }
}

double MeasuredCostModel::ExecutionSeconds(const Node& node,
                                           const std::string& device_type) const {
  auto it = by_node_.find(node.name());
  if (it != by_node_.end()) {
    for (const Timing& t : it->second.timings) {
      if (t.count > 0 && t.device_type == device_type) return t.total_seconds / t.count;
    }
  }
  return base_->ExecutionSeconds(node, device_type);
}

int64_t MeasuredCostModel::OutputBytes(const Node& node, int port) const {
  auto it = by_node_.find(node.name());
  if (it != by_node_.end() && port >= 0 &&
      port < static_cast<int>(it->second.output_bytes.size()) &&
      it->second.output_bytes[port] >= 0) {
    return it->second.output_bytes[port];
  }
  return base_->OutputBytes(node, port);
}

LinkCost MeasuredCostModel::Link(const std::string& src, const std::string& dst) const {
  return base_->Link(src, dst);
}

}  // namespace tact

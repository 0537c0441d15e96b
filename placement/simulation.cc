#include "placement/simulation.h"

#include <algorithm>

namespace tact {

Simulation::Simulation(const Graph& graph, const CostModel& cost, const DeviceList& devices)
    : cost_(cost),
      devices_(devices),
      num_devices_(devices.size()),
      latency_(size_t(num_devices_) * num_devices_, 0),
      seconds_per_byte_(latency_.size(), 0),
      device_free_(num_devices_, 0),
      finish_(graph.num_node_ids(), 0),
      device_(graph.num_node_ids(), -1),
      first_port_(graph.num_node_ids(), 0),
      first_input_(graph.num_node_ids(), 0),
      num_inputs_(graph.num_node_ids(), 0),
      exec_by_type_(devices.types().size(), -1) {
  port_bytes_.reserve(graph.num_nodes() + graph.num_nodes() / 8);
  data_inputs_.reserve(graph.num_edges());
  // The cost model's names are strings; ask once per pair, not per edge.
  for (int s = 0; s < num_devices_; ++s) {
    for (int d = 0; d < num_devices_; ++d) {
      if (s == d) continue;
      const LinkCost l = cost.Link(devices.name(s), devices.name(d));
      latency_[size_t(s) * num_devices_ + d] = l.latency_seconds;
      seconds_per_byte_[size_t(s) * num_devices_ + d] =
          l.bytes_per_second > 0 ? 1.0 / l.bytes_per_second : 0;
    }
  }
}

void Simulation::Prepare(const Node& node) {
  node_ = &node;
  const int id = node.id();
  first_port_[id] = static_cast<int>(port_bytes_.size());
  for (int port = 0; port < node.num_outputs(); ++port) {
    port_bytes_.push_back(cost_.OutputBytes(node, port));
  }
  first_input_[id] = static_cast<int>(data_inputs_.size());
  inputs_.clear();
  for (const Edge* e : node.in_edges()) {
    const int src = e->src->id();
    if (!e->IsControlEdge()) data_inputs_.push_back(DataInput{src, e->src_output});
    if (device_[src] < 0) continue;  // a back edge: not simulated yet
    const double bytes =
        e->IsControlEdge() ? 0 : static_cast<double>(output_bytes(src, e->src_output));
    inputs_.push_back(Input{device_[src], finish_[src], bytes});
  }
  num_inputs_[id] = static_cast<int>(data_inputs_.size()) - first_input_[id];
  std::fill(exec_by_type_.begin(), exec_by_type_.end(), -1);
}

double Simulation::CompletionOn(int d) {
  double ready = device_free_[d];
  for (const Input& in : inputs_) {
    double arrival = in.finish;
    if (in.device != d) {
      const size_t link = size_t(in.device) * num_devices_ + d;
      arrival += latency_[link] + in.bytes * seconds_per_byte_[link];
    }
    ready = std::max(ready, arrival);
  }
  double& exec = exec_by_type_[devices_.type_of(d)];
  if (exec < 0) {
    exec = std::max(0.0, cost_.ExecutionSeconds(*node_, devices_.types()[devices_.type_of(d)]));
  }
  return ready + exec;
}

void Simulation::Commit(int d, double finish) {
  const int id = node_->id();
  device_[id] = d;
  finish_[id] = finish;
  device_free_[d] = finish;
  makespan_ = std::max(makespan_, finish);
}

}  // namespace tact

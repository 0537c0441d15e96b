#include "placement/simulation.h"

#include <algorithm>

namespace tact {

Simulation::Simulation(const FlatGraph& flat, const CostModel& cost, const DeviceList& devices,
                       int64_t copied_const_max_bytes)
    : flat_(flat),
      cost_(cost),
      devices_(devices),
      num_devices_(devices.size()),
      latency_(size_t(num_devices_) * num_devices_, 0),
      seconds_per_byte_(latency_.size(), 0),
      timelines_(num_devices_),
      finish_(flat.num_ids(), 0),
      device_(flat.num_ids(), -1),
      copied_const_max_bytes_(copied_const_max_bytes),
      copied_(flat.num_ids(), 0),
      first_port_(flat.num_ids(), -1),
      first_input_(flat.num_ids(), 0),
      num_inputs_(flat.num_ids(), 0),
      exec_by_type_(devices.types().size(), -1),
      exec_seconds_(size_t(flat.num_ids()) * devices.types().size(), -1),
      slot_(num_devices_, Timeline::Slot{-1, 0}) {
  port_bytes_.reserve(flat.num_live() + flat.num_live() / 8);
  data_inputs_.reserve(flat.num_edges());
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
  // Prepared again (the placer does that after simulating the sources it
  // deferred), a node keeps what was recorded the first time.
  const bool record = first_port_[id] < 0;
  if (record) {
    first_port_[id] = static_cast<int>(port_bytes_.size());
    copied_[id] = CopiedToReaders(node, copied_const_max_bytes_);
    for (int port = 0; port < node.num_outputs(); ++port) {
      port_bytes_.push_back(cost_.OutputBytes(node, port));
    }
    first_input_[id] = static_cast<int>(data_inputs_.size());
  }
  inputs_.clear();
  for (const FlatGraph::InEdge* e = flat_.in_begin(id); e != flat_.in_end(id); ++e) {
    const int src = e->src;
    if (record && !e->IsControlEdge()) data_inputs_.push_back(DataInput{src, e->src_output});
    if (device_[src] < 0) continue;  // a back edge: not simulated yet
    const bool control = e->IsControlEdge();
    const double bytes = control ? 0 : static_cast<double>(output_bytes(src, e->src_output));
    inputs_.push_back(Input{device_[src], finish_[src], bytes, !control && copied_[src] != 0});
  }
  if (record) num_inputs_[id] = static_cast<int>(data_inputs_.size()) - first_input_[id];
  std::fill(exec_by_type_.begin(), exec_by_type_.end(), -1);
  std::fill(slot_.begin(), slot_.end(), Timeline::Slot{-1, 0});
}

double Simulation::CompletionOn(int d) {
  double ready = 0;
  for (const Input& in : inputs_) {
    double arrival = in.finish;
    if (in.device != d && !(in.copied && devices_.type_of(in.device) == devices_.type_of(d))) {
      const size_t link = size_t(in.device) * num_devices_ + d;
      arrival += latency_[link] + in.bytes * seconds_per_byte_[link];
    }
    ready = std::max(ready, arrival);
  }
  double& exec = exec_by_type_[devices_.type_of(d)];
  if (exec < 0) {
    exec = std::max(0.0, cost_.ExecutionSeconds(*node_, devices_.types()[devices_.type_of(d)]));
  }
  slot_[d] = timelines_[d].EarliestSlot(ready, exec);
  return slot_[d].start + exec;
}

double Simulation::LocalInputBytes(int d) const {
  double bytes = 0;
  for (const Input& in : inputs_) {
    if (in.device == d) bytes += in.bytes;
  }
  return bytes;
}

void Simulation::Commit(int d) {
  const int id = node_->id();
  if (slot_[d].gap < 0) CompletionOn(d);
  const Timeline::Slot slot = slot_[d];
  const double exec = exec_by_type_[devices_.type_of(d)];
  timelines_[d].Occupy(slot, exec);
  const double finish = slot.start + exec;
  device_[id] = d;
  finish_[id] = finish;
  std::copy(exec_by_type_.begin(), exec_by_type_.end(),
            exec_seconds_.begin() + size_t(id) * exec_by_type_.size());
  makespan_ = std::max(makespan_, finish);
  std::fill(slot_.begin(), slot_.end(), Timeline::Slot{-1, 0});
}

}  // namespace tact

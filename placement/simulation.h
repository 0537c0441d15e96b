// Simulation: the paper's simulated execution of a step (3.2.1), which the
// placer runs node by node while it chooses devices and SimulatedMakespan
// runs over a finished assignment.
//
// Model: nodes are simulated in the order given (topological); each device
// runs one node at a time; a node is ready on a device when every input has
// arrived there: at once from its own device, after latency + bytes /
// bandwidth from another (a control edge is a tiny tensor: latency only).
// It starts in the device's earliest idle gap (timeline.h) that begins at or
// after it is ready and is long enough for it, so a cheap node whose inputs
// arrived long ago fills a gap near its producers rather than waiting behind
// everything simulated before it: the executor too runs nodes when they are
// ready, not in topological order (list scheduling with HEFT's insertion
// policy). Links are not contended; an input from a node not simulated yet
// (a loop's back edge) is not waited for.
//
// Internal to placement/. Holds references to the flat graph, the cost
// model and the device list, which must outlive it. Not thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/graph.h"
#include "placement/const_copies.h"
#include "placement/cost_model.h"
#include "placement/device_list.h"
#include "placement/flat_graph.h"
#include "placement/timeline.h"

namespace tact {

class Simulation {
 public:
  // `flat` is FlatGraph::Gather of the graph whose nodes are simulated. A
  // Const of at most `copied_const_max_bytes` reaches the devices of its
  // type at once: the partitioner copies it there (const_copies.h).
  Simulation(const FlatGraph& flat, const CostModel& cost, const DeviceList& devices,
             int64_t copied_const_max_bytes = kDuplicateConstMaxBytes);

  // Gathers `node`'s inputs (their devices, finish times and bytes) once,
  // before CompletionOn is asked for each candidate device. A node may be
  // prepared again, to see inputs simulated since.
  void Prepare(const Node& node);
  // When the prepared node would finish on device `d`.
  double CompletionOn(int d);
  // Bytes of the prepared node's inputs that are on device `d` already: for
  // choosing between devices where it would finish at the same time.
  double LocalInputBytes(int d) const;
  // Places the prepared node on `d`, in the slot CompletionOn(d) found
  // (asking it if it was not).
  void Commit(int d);

  // The seconds the cost model gave a committed node on devices of type
  // index `type` (of DeviceList::types()), clamped at 0, or -1 when the
  // walk never asked (no candidate device of that type): a second plan can
  // be costed without asking again.
  double exec_seconds(int node_id, int type) const {
    return exec_seconds_[size_t(node_id) * exec_by_type_.size() + type];
  }

  // The device a simulated node ran on, or -1.
  int device_of(int node_id) const { return device_[node_id]; }
  double makespan() const { return makespan_; }

  // What Prepare recorded of a node, for the placer's report without a
  // second walk over the graph's edges and shapes (a cache miss or two per
  // edge on a large graph). Valid once the node has been prepared:
  // the cost model's OutputBytes of each of its outputs, asked once per
  // output rather than once per consumer,
  int64_t output_bytes(int node_id, int port) const {
    return port_bytes_[first_port_[node_id] + port];
  }
  // and its data inputs as (source id, source port), in edge order,
  // including those from nodes not simulated yet.
  struct DataInput {
    int src;
    int port;
  };
  const DataInput* data_inputs_begin(int node_id) const {
    return data_inputs_.data() + first_input_[node_id];
  }
  const DataInput* data_inputs_end(int node_id) const {
    return data_inputs_.data() + first_input_[node_id] + num_inputs_[node_id];
  }
  // Whether the partitioner copies a prepared node's output to the devices
  // of its type that read it, rather than sending it.
  bool copied_to_readers(int node_id) const { return copied_[node_id] != 0; }
  // Index of (node, port) among every output of prepared nodes: dense, for
  // per-tensor arrays. num_ports() is one past the largest.
  int port_index(int node_id, int port) const { return first_port_[node_id] + port; }
  int num_ports() const { return static_cast<int>(port_bytes_.size()); }

 private:
  struct Input {
    int device;
    double finish;
    double bytes;  // 0 for a control edge
    bool copied;   // a copied Const's value: no transfer to its device type
  };
  const FlatGraph& flat_;
  const CostModel& cost_;
  const DeviceList& devices_;
  const int num_devices_;
  std::vector<double> latency_;          // [src * D + dst]; 0 on the diagonal
  std::vector<double> seconds_per_byte_; // [src * D + dst]; 0 on the diagonal
  std::vector<Timeline> timelines_;  // by device
  std::vector<double> finish_;  // by node id
  std::vector<int> device_;     // by node id
  const int64_t copied_const_max_bytes_;
  std::vector<char> copied_;        // by node id: copied_to_readers
  std::vector<int> first_port_;     // by node id: index of its output 0 in port_bytes_; -1: not prepared
  std::vector<int64_t> port_bytes_;
  std::vector<int> first_input_;    // by node id: its first entry in data_inputs_
  std::vector<int> num_inputs_;     // by node id
  std::vector<DataInput> data_inputs_;
  double makespan_ = 0;

  // The prepared node.
  const Node* node_ = nullptr;
  std::vector<Input> inputs_;
  std::vector<double> exec_by_type_;  // < 0: not asked yet
  std::vector<double> exec_seconds_;  // [node id * types + type]: exec_by_type_ at Commit
  std::vector<Timeline::Slot> slot_;  // by device: what CompletionOn found
};

}  // namespace tact

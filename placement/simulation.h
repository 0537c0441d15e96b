// Simulation: the paper's simulated execution of a step (3.2.1), which the
// placer runs node by node while it chooses devices and SimulatedMakespan
// runs over a finished assignment.
//
// Model: nodes are simulated in the order given (topological); each device
// runs its nodes one at a time, in that order; a node starts when its
// device is free and every input has arrived: at once from its own device,
// after latency + bytes / bandwidth from another (a control edge is a tiny
// tensor: latency only). Links are not contended; an input from a node not
// simulated yet (a loop's back edge) is not waited for.
//
// Internal to placement/. Holds references to the cost model and device
// list, which must outlive it. Not thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/graph.h"
#include "placement/cost_model.h"
#include "placement/device_list.h"

namespace tact {

class Simulation {
 public:
  Simulation(const Graph& graph, const CostModel& cost, const DeviceList& devices);

  // Gathers `node`'s inputs (their devices, finish times and bytes) once,
  // before CompletionOn is asked for each candidate device.
  void Prepare(const Node& node);
  // When the prepared node would finish on device `d`.
  double CompletionOn(int d);
  // Places the prepared node on `d`, finishing at `finish` (from CompletionOn).
  void Commit(int d, double finish);

  // The device a simulated node ran on, or -1.
  int device_of(int node_id) const { return device_[node_id]; }
  double makespan() const { return makespan_; }

 private:
  struct Input {
    int device;
    double finish;
    double bytes;  // 0 for a control edge
  };
  const CostModel& cost_;
  const DeviceList& devices_;
  const int num_devices_;
  std::vector<double> latency_;          // [src * D + dst]; 0 on the diagonal
  std::vector<double> seconds_per_byte_; // [src * D + dst]; 0 on the diagonal
  std::vector<double> device_free_;
  std::vector<double> finish_;  // by node id
  std::vector<int> device_;     // by node id
  double makespan_ = 0;

  // The prepared node.
  const Node* node_ = nullptr;
  std::vector<Input> inputs_;
  std::vector<double> exec_by_type_;  // < 0: not asked yet
};

}  // namespace tact

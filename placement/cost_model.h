// CostModel: what the placer (placer.h) asks before it simulates a step
// (paper 3.2.1): how long a node runs on a device type, how many bytes each
// of its outputs holds, and how long those bytes take to cross from one
// device to another.
//
// Two implementations:
//   NewStaticCostModel   estimates from the inferred shapes (shape_refiner.h):
//                        FLOPs of MatMul, Conv2D and its backprops, one per
//                        element for element-wise ops, divided by a per
//                        device type throughput; link costs per kind of link.
//   MeasuredCostModel    the static estimates, overridden per node by the
//                        timings and sizes that executed steps report.
//
//   auto cost = NewStaticCostModel(*graph);
//   double s = cost->ExecutionSeconds(*matmul, "CPU");
//   double t = cost->TransferSeconds(cost->OutputBytes(*matmul, 0), cpu0, cpu1);
//
// Thread-compatible: concurrent const calls are fine; MeasuredCostModel's
// Record needs exclusive access.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "graph/graph.h"

namespace tact {

// A one-way link between two devices: moving b bytes takes
// latency_seconds + b / bytes_per_second.
struct LinkCost {
  double latency_seconds = 0;
  double bytes_per_second = 1e10;
};

class CostModel {
 public:
  virtual ~CostModel() = default;
  // Estimated seconds to run `node` on a device of type `device_type`
  // ("CPU", "GPU"; upper case, as DeviceName keeps it).
  virtual double ExecutionSeconds(const Node& node, const std::string& device_type) const = 0;
  // Estimated bytes of output `port` of `node`.
  virtual int64_t OutputBytes(const Node& node, int port) const = 0;
  // The link from device `src` to device `dst` (full names, src != dst).
  virtual LinkCost Link(const std::string& src, const std::string& dst) const = 0;

  // Seconds to move `bytes` from device `src` to `dst` (full names); 0 when
  // src == dst. Not virtual on purpose: the placer reads Link() once per
  // device pair and applies this same formula, so the two cannot disagree.
  double TransferSeconds(int64_t bytes, const std::string& src, const std::string& dst) const;
};

// How fast one device type computes.
struct DeviceTypeCost {
  double flops_per_second = 1e10;
  // Paid by every node, whatever its size: dispatch, a kernel launch.
  double op_overhead_seconds = 2e-6;
};

struct StaticCostOptions {
  // By upper-case device type; a type not listed costs `other_device_type`.
  std::map<std::string, DeviceTypeCost> device_types = {
      {"CPU", {1e10, 2e-6}},    // a few cores of AVX2 FMA, as Eigen reaches them
      {"GPU", {1e13, 8e-6}}};   // a recent GPU, launch latency included
  DeviceTypeCost other_device_type = {1e10, 2e-6};
  // What a node that launches no kernel (Identity, Shape, Reshape, a
  // Variable: only metadata or a buffer handed on) costs on any device
  // type: the executor's dispatch, not a GPU's launch.
  double no_compute_seconds = 2e-6;
  // Two devices of one task share the process: a memcpy or a PCIe copy.
  // (Between CPU devices tact hands over a pointer: the latency, of the
  // rendezvous and an actor message, is most of the cost.)
  LinkCost same_task = {1e-5, 1e10};
  // Devices of different tasks (or jobs) talk over the network (10 Gb/s).
  LinkCost across_tasks = {5e-5, 1.25e9};
  // An unknown dimension (in practice the batch: Placeholder [?, 784])
  // counts as this many.
  int64_t unknown_dim = 32;
  // A tensor of unknown rank counts as this many elements.
  int64_t unknown_rank_elements = 1;
};

// Estimates come from the node asked about: its op, attrs and the shapes
// inferred for it and its inputs (run shape inference first; the builder API
// does as it adds nodes). So the model keeps no reference to `graph`, and
// answers for nodes added later too.
std::unique_ptr<CostModel> NewStaticCostModel(const Graph& graph, StaticCostOptions options = {});

// The FLOPs the static model counts for `node`, unknown dims counted as
// `options` says (exposed for tests and for `tact graph` summaries).
double EstimatedFlops(const Node& node, const StaticCostOptions& options);
// Elements of output `port` of `node` under the same rules.
int64_t EstimatedElements(const Node& node, int port, const StaticCostOptions& options);

// The static model corrected by measurement: every Record() of a node
// replaces the estimate for that node (and device type) by the mean of what
// was recorded; nodes and types never recorded keep the base estimate.
// Nodes are matched by name, so records survive rebuilding the graph (a
// pruned or re-extended graph keeps its node names).
class MeasuredCostModel : public CostModel {
 public:
  // Starts from the static estimates for `graph`.
  explicit MeasuredCostModel(const Graph& graph, StaticCostOptions options = {});
  // Starts from `base` (not null), which it owns.
  explicit MeasuredCostModel(std::unique_ptr<CostModel> base);

  // One execution of node `node_name` on a device of type `device_type`
  // (any case): its compute seconds and, if not empty, the bytes of each of
  // its outputs (the latest record of a port wins: sizes do not vary by
  // device). A negative `seconds` is ignored.
  void Record(const std::string& node_name, const std::string& device_type, double seconds,
              const std::vector<int64_t>& output_bytes = {});
  // How many records were taken (for tests and logs).
  int64_t num_records() const { return num_records_; }

  double ExecutionSeconds(const Node& node, const std::string& device_type) const override;
  int64_t OutputBytes(const Node& node, int port) const override;
  LinkCost Link(const std::string& src, const std::string& dst) const override;

 private:
  struct Timing {
    std::string device_type;
    double total_seconds = 0;
    int64_t count = 0;
  };
  struct Measured {
    std::vector<Timing> timings;  // one per device type seen; few
    std::vector<int64_t> output_bytes;  // -1: not measured
  };
  std::unique_ptr<CostModel> base_;
  std::unordered_map<std::string, Measured> by_node_;
  int64_t num_records_ = 0;
};

}  // namespace tact

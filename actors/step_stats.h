// What ran in a step, node by node (TensorFlow's StepStats): the executor
// fills it when asked, partitions send it back in their StepDone, and a
// Session's caller reads it from RunMetadata.
//
// Thread-safe.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace tact {

struct NodeExecStats {
  int node_id = -1;
  std::string node_name;
  std::string device;    // where it ran; set by the partition that ran it
  // The system clock's ns since the Unix epoch, read once as the step
  // starts and then moved on by the steady clock: the nodes of every
  // partition and process (and machine, as far as their clocks agree)
  // share one time line, and end_ns - start_ns is the node's own time.
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  std::vector<int64_t> output_bytes;  // per output; -1 for one not produced
};

// What ran in a step. Filled only when Args::stats is set, since the clock
// reads cost more than a cheap kernel.
class StepStats {
 public:
  void Add(NodeExecStats s);
  std::vector<NodeExecStats> nodes() const;  // in completion order
  bool Ran(const std::string& node_name) const;

 private:
  mutable std::mutex mu_;
  std::vector<NodeExecStats> nodes_;
};

}  // namespace tact

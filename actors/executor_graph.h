// ExecutorGraph: what an executor knows of its partition's graph for the
// executor's whole life: a kernel per node, and each node's out-edges and
// input slots as flat arrays, so that a step touches no Graph structures.
// Shared by the straight-line executor (actors/executor.cc) and the one
// with frames (actors/frame_executor.h); not for other users.
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <vector>

#include "actors/executor.h"
#include "actors/kernel_costs.h"

namespace tact {

int64_t NowNs();  // a steady clock
// The system clock (ns since the Unix epoch) minus NowNs, now: a step's
// stats add it to their steady times, so that the nodes of every
// partition, process and machine share one time line.
int64_t WallOffsetNs();

// Where one output of a node goes.
struct OutEdge {
  int dst = -1;
  int dst_slot = -1;    // index into the step's input slots; -1 for control
  int src_output = -1;  // -1 for control
  int dst_input = -1;   // the consumer's port
  // A ref output (a Variable's) feeding a plain input: the consumer gets
  // the variable's value, read when the edge delivers.
  bool deref = false;
};

struct NodeItem {
  std::unique_ptr<OpKernel> kernel;
  bool is_async = false;
  bool expensive = true;  // as the kernel declares; ExecutorGraph::Expensive decides
  int input_start = 0;  // first of this node's input slots
  int num_inputs = 0;
  int out_begin = 0;    // range in ExecutorGraph::out_edges
  int out_end = 0;
};

struct ExecutorGraph {
  std::shared_ptr<const Graph> graph;
  Device* device = nullptr;
  std::vector<NodeItem> items;      // by node id (holes for removed ids)
  std::vector<OutEdge> out_edges;
  std::vector<int32_t> initial_pending;  // every in-edge of each node
  std::vector<int> roots;           // nodes with no inputs, in id order
  int num_slots = 0;
  // What the executors learn of the declared-expensive kernels' run times.
  std::unique_ptr<KernelCosts> costs;

  Status Initialize(std::shared_ptr<const Graph> g, Device* d);

  // Whether a ready node `id` goes to the device's threads when others are
  // ready beside it (actors/kernel_costs.h).
  bool Expensive(int id) const { return costs->Expensive(id); }

  // A kernel context for node `id` reading its inputs from `inputs`.
  // (This and Compute are on every node's path: inline.)
  OpKernelContext::Params MakeParams(int id, const Executor::Args& args, Tensor* inputs) const {
    const NodeItem& item = items[id];
    OpKernelContext::Params p;
    p.device = device;
    p.op_kernel = item.kernel.get();
    p.inputs = inputs;
    p.num_inputs = item.num_inputs;
    p.step_id = args.step_id;
    p.rendezvous = args.rendezvous;
    p.default_container = args.default_container;
    return p;
  }
  // Runs node `id`'s synchronous kernel; an exception that escapes it (a
  // std::bad_alloc deep inside a library) becomes the kernel's error
  // rather than the end of the process.
  void Compute(int id, OpKernelContext* ctx) const {
    const bool timed = costs->Timed(id);
    const int64_t start = timed ? NowNs() : 0;
    try {
      items[id].kernel->Compute(ctx);
    } catch (const std::exception& e) {
      ctx->CtxFailure(errors::Internal("kernel threw: ", e.what()));
    }
    if (timed) costs->Record(id, NowNs() - start);
  }
  // What `edge` delivers of `output`: the tensor, or for a ref feeding a
  // plain input the variable's value; the error names the consumer.
  StatusOr<Tensor> EdgeValue(const OutEdge& edge, const Tensor& output) const;
  // The error of a consumed output that a kernel did not produce.
  Status MissingOutput(int id, int output) const;
  // Node `id`, started at `start_ns` (NowNs), ends now.
  void RecordStats(const Executor::Args& args, int64_t wall_offset_ns, int id, int64_t start_ns,
                   OpKernelContext* ctx) const;
};

}  // namespace tact

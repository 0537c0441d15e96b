#include "actors/executor_graph.h"

#include <chrono>
#include <string>

#include "kernels/kernel_registry.h"
#include "kernels/variable.h"

namespace tact {

Status ExecutorGraph::Initialize(std::shared_ptr<const Graph> g, Device* d) {
  graph = std::move(g);
  device = d;
  const int n = graph->num_node_ids();
  items.resize(n);
  initial_pending.assign(n, 0);
  for (Node* node : graph->nodes()) {
    NodeItem& item = items[node->id()];
    TACT_ASSIGN_OR_RETURN(item.kernel, CreateOpKernel(device, node->properties()));
    item.is_async = item.kernel->AsAsync() != nullptr;
    // A GPU kernel only enqueues its work on the device's stream: running it
    // inline costs less than handing it to another thread (TensorFlow counts
    // every GPU kernel inexpensive for the same reason).
    item.expensive = item.kernel->IsExpensive() && device->device_type() != DEVICE_GPU;
    item.input_start = num_slots;
    item.num_inputs = node->num_inputs();
    num_slots += node->num_inputs();
  }
  for (Node* node : graph->nodes()) {
    NodeItem& item = items[node->id()];
    item.out_begin = static_cast<int>(out_edges.size());
    for (const Edge* e : node->out_edges()) {
      OutEdge oe;
      oe.dst = e->dst->id();
      if (!e->IsControlEdge()) {
        oe.dst_slot = items[oe.dst].input_start + e->dst_input;
        oe.src_output = e->src_output;
        oe.dst_input = e->dst_input;
        oe.deref = IsRefType(node->output_type(e->src_output)) &&
                   !IsRefType(e->dst->input_type(e->dst_input));
      }
      out_edges.push_back(oe);
      ++initial_pending[oe.dst];
    }
    item.out_end = static_cast<int>(out_edges.size());
  }
  std::vector<bool> declared_expensive(n, false);
  for (Node* node : graph->nodes()) {
    if (initial_pending[node->id()] == 0) roots.push_back(node->id());
    // (An async kernel is never timed: Compute does not run it.)
    declared_expensive[node->id()] = items[node->id()].expensive;
  }
  costs = std::make_unique<KernelCosts>(declared_expensive);
  return Status::OK();
}

StatusOr<Tensor> ExecutorGraph::EdgeValue(const OutEdge& edge, const Tensor& output) const {
  if (!edge.deref) return output;
  StatusOr<Tensor> value = ReadVariable(output);
  if (!value.ok()) {
    return value.status().WithPrefix(items[edge.dst].kernel->ErrorPrefix() + "input " +
                                     std::to_string(edge.dst_input) + ": ");
  }
  return value;
}

Status ExecutorGraph::MissingOutput(int id, int output) const {
  return errors::Internal(items[id].kernel->ErrorPrefix(), "output ", output,
                          " was not produced but has a consumer");
}

void ExecutorGraph::RecordStats(const Executor::Args& args, int64_t wall_offset_ns, int id,
                                int64_t start_ns, OpKernelContext* ctx) const {
  NodeExecStats s;
  s.node_id = id;
  s.node_name = items[id].kernel->name();
  s.start_ns = start_ns + wall_offset_ns;
  s.end_ns = NowNs() + wall_offset_ns;
  for (int i = 0; i < ctx->num_outputs(); ++i) {
    const Tensor& t = ctx->outputs()[i];
    s.output_bytes.push_back(t.IsInitialized() ? static_cast<int64_t>(t.TotalBytes()) : -1);
  }
  args.stats->Add(std::move(s));
}

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t WallOffsetNs() {
  const int64_t wall = std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
  return wall - NowNs();
}

}  // namespace tact

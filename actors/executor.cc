#include "actors/executor.h"

#include <atomic>
#include <chrono>
#include <condition_variable>

#include "actors/pending_counts.h"
#include "actors/ready_queue.h"
#include "actors/send_batch.h"
#include "kernels/kernel_registry.h"
#include "kernels/rendezvous.h"
#include "kernels/variable.h"

namespace tact {

Status Executor::Run(const Args& args) const {
  std::mutex mu;
  std::condition_variable cv;
  bool finished = false;
  Status result;
  RunAsync(args, [&](const Status& s) {
    std::lock_guard<std::mutex> lock(mu);
    result = s;
    finished = true;
    cv.notify_one();
  });
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return finished; });
  return result;
}

namespace {

// Where one output of a node goes.
struct OutEdge {
  int dst = -1;
  int dst_slot = -1;    // index into the step's input slots; -1 for control
  int src_output = -1;  // -1 for control
  int dst_input = -1;   // the consumer's port, for error messages
  // A ref output (a Variable's) feeding a plain input: the consumer gets
  // the variable's value, read when the edge delivers.
  bool deref = false;
};

// What the executor knows of a node, fixed for the executor's life.
struct NodeItem {
  std::unique_ptr<OpKernel> kernel;
  bool is_async = false;
  bool expensive = true;
  int input_start = 0;  // first of this node's input slots
  int num_inputs = 0;
  int out_begin = 0;    // range in ExecutorImpl::out_edges_
  int out_end = 0;
};

class ExecutorImpl final : public Executor {
 public:
  Status Initialize(std::shared_ptr<const Graph> graph, Device* device);
  void RunAsync(const Args& args, DoneCallback done) const override;

  std::shared_ptr<const Graph> graph_;
  Device* device_ = nullptr;
  std::vector<NodeItem> items_;        // by node id (holes for removed ids)
  std::vector<OutEdge> out_edges_;
  std::vector<int32_t> initial_pending_;
  std::vector<int> roots_;             // nodes with no inputs, in id order
  int num_slots_ = 0;
};

Status ExecutorImpl::Initialize(std::shared_ptr<const Graph> graph, Device* device) {
  graph_ = std::move(graph);
  device_ = device;
  const int n = graph_->num_node_ids();
  items_.resize(n);
  initial_pending_.assign(n, 0);
  for (Node* node : graph_->nodes()) {
    NodeItem& item = items_[node->id()];
    TACT_ASSIGN_OR_RETURN(item.kernel, CreateOpKernel(device, node->properties()));
    item.is_async = item.kernel->AsAsync() != nullptr;
    item.expensive = item.kernel->IsExpensive();
    item.input_start = num_slots_;
    item.num_inputs = node->num_inputs();
    num_slots_ += node->num_inputs();
  }
  for (Node* node : graph_->nodes()) {
    NodeItem& item = items_[node->id()];
    item.out_begin = static_cast<int>(out_edges_.size());
    for (const Edge* e : node->out_edges()) {
      OutEdge oe;
      oe.dst = e->dst->id();
      if (!e->IsControlEdge()) {
        oe.dst_slot = items_[oe.dst].input_start + e->dst_input;
        oe.src_output = e->src_output;
        oe.dst_input = e->dst_input;
        oe.deref = IsRefType(node->output_type(e->src_output)) &&
                   !IsRefType(e->dst->input_type(e->dst_input));
      }
      out_edges_.push_back(oe);
      ++initial_pending_[oe.dst];
    }
    item.out_end = static_cast<int>(out_edges_.size());
  }
  for (Node* node : graph_->nodes()) {
    if (initial_pending_[node->id()] == 0) roots_.push_back(node->id());
  }
  return Status::OK();
}

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The state of one step. Deletes itself when the last node has finished.
class ExecutorState {
 public:
  ExecutorState(const ExecutorImpl* impl, const Executor::Args& args, Executor::DoneCallback done)
      : impl_(impl),
        args_(args),
        done_(std::move(done)),
        pending_(impl->initial_pending_),
        slots_(impl->num_slots_),
        start_ns_(args.stats ? NowNs() : 0) {}

  void Start();

 private:
  struct AsyncCall;

  // Runs `first`, then whatever becomes ready on this thread.
  void Process(int first) {
    ReadyQueue ready;
    ready.Push(first);
    RunLoop(&ready);
  }
  // Runs the nodes in `ready` and those that become ready after them.
  void RunLoop(ReadyQueue* ready);
  // Computes a synchronous kernel and hands its outputs on; false if it
  // failed.
  bool RunKernel(int id, std::vector<int>* newly_ready);
  void StartAsync(int id, ReadyQueue* ready);
  void FinishAsync(AsyncCall* call, ReadyQueue* ready);
  OpKernelContext::Params MakeParams(int id) const;
  void ReleaseInputs(int id);
  // Hands node `id`'s outputs to its consumers and appends the consumers
  // that became ready to `newly_ready`.
  void PropagateOutputs(int id, Tensor* outputs, std::vector<int>* newly_ready);
  // Accounts for a finished node whose successors `newly_ready` now count
  // as outstanding, then queues them: cheap ones and the last expensive one
  // into `ready` (if given), other expensive ones to the device's threads.
  // Returns false if the step finished (and `this` is gone).
  bool NodeDone(const std::vector<int>& newly_ready, ReadyQueue* ready);
  void Dispatch(int id) {
    impl_->device_->Schedule([this, id] { Process(id); });
  }
  void Fail(const Status& s);
  void Finish();
  void RecordStats(int id, int64_t start, OpKernelContext* ctx);

  const ExecutorImpl* impl_;
  Executor::Args args_;
  Executor::DoneCallback done_;
  PendingCounts pending_;
  std::vector<Tensor> slots_;        // every node's inputs, by slot index
  std::atomic<int> outstanding_{0};  // nodes ready or running
  std::atomic<bool> aborted_{false};
  std::mutex mu_;
  Status status_;
  int64_t start_ns_;
};

// An async kernel's context lives until its continuation runs.
struct ExecutorState::AsyncCall {
  AsyncCall(int node, const OpKernelContext::Params& p, int64_t t)
      : id(node), params(p), ctx(params), start(t) {}
  int id;
  OpKernelContext::Params params;
  OpKernelContext ctx;
  int64_t start;
  // 0: inside ComputeAsync; 1: ComputeAsync returned; 2: done was called.
  // Tells a continuation that runs before ComputeAsync returns (a Recv whose
  // tensor is already there) to leave the work to the calling loop.
  std::atomic<int> phase{0};
};

void ExecutorState::Start() {
  const std::vector<int>& roots = impl_->roots_;
  if (roots.empty()) {
    Finish();
    return;
  }
  // The roots are handed out as if a pseudo-node that made them all ready
  // had just finished: cheap ones run here, expensive ones spread out.
  outstanding_.store(1, std::memory_order_relaxed);
  ReadyQueue ready(args_.caller_may_compute);
  if (NodeDone(roots, &ready)) RunLoop(&ready);
}

OpKernelContext::Params ExecutorState::MakeParams(int id) const {
  const NodeItem& item = impl_->items_[id];
  OpKernelContext::Params p;
  p.device = impl_->device_;
  p.op_kernel = item.kernel.get();
  p.inputs = slots_.data() + item.input_start;
  p.num_inputs = item.num_inputs;
  p.step_id = args_.step_id;
  p.rendezvous = args_.rendezvous;
  p.default_container = args_.default_container;
  return p;
}

void ExecutorState::ReleaseInputs(int id) {
  const NodeItem& item = impl_->items_[id];
  for (int i = 0; i < item.num_inputs; ++i) slots_[item.input_start + i] = Tensor();
}

void ExecutorState::RunLoop(ReadyQueue* ready) {
  // The cheap kernels' Sends to other tasks leave together, and before an
  // expensive kernel keeps this thread (actors/send_batch.h).
  SendBatch batch;
  std::vector<int> newly_ready;
  while (!ready->empty()) {
    const int id = ready->Pop();
    newly_ready.clear();
    if (!aborted_.load(std::memory_order_acquire)) {
      if (impl_->items_[id].is_async) {
        StartAsync(id, ready);
        continue;
      }
      if (impl_->items_[id].expensive) SendBatch::Flush();
      RunKernel(id, &newly_ready);
    }
    if (!NodeDone(newly_ready, ready)) return;
  }
}

bool ExecutorState::RunKernel(int id, std::vector<int>* newly_ready) {
  const NodeItem& item = impl_->items_[id];
  const int64_t start = args_.stats ? NowNs() : 0;
  OpKernelContext ctx(MakeParams(id));
  try {
    item.kernel->Compute(&ctx);
  } catch (const std::exception& e) {
    // Kernels report errors through the context; an escaped exception
    // (std::bad_alloc deep inside a library) still must not kill the process.
    ctx.CtxFailure(errors::Internal("kernel threw: ", e.what()));
  }
  ReleaseInputs(id);
  if (args_.stats) RecordStats(id, start, &ctx);
  if (!ctx.status().ok()) {
    Fail(ctx.status());
    return false;
  }
  PropagateOutputs(id, ctx.outputs(), newly_ready);
  return true;
}

void ExecutorState::StartAsync(int id, ReadyQueue* ready) {
  auto* call = new AsyncCall(id, MakeParams(id), args_.stats ? NowNs() : 0);
  impl_->items_[id].kernel->AsAsync()->ComputeAsync(&call->ctx, [this, call] {
    if (call->phase.exchange(2) == 0) return;  // the caller below finishes it
    FinishAsync(call, nullptr);
  });
  if (call->phase.exchange(1) == 2) FinishAsync(call, ready);
}

thread_local int inline_continuations = 0;

void ExecutorState::FinishAsync(AsyncCall* call, ReadyQueue* ready) {
  const int id = call->id;
  ReleaseInputs(id);
  if (args_.stats) RecordStats(id, call->start, &call->ctx);
  std::vector<int> newly_ready;
  if (!call->ctx.status().ok()) {
    Fail(call->ctx.status());
  } else if (!aborted_.load(std::memory_order_acquire)) {
    PropagateOutputs(id, call->ctx.outputs(), &newly_ready);
  }
  delete call;
  if (ready == nullptr && inline_continuations > 0) {
    ReadyQueue here(/*allows_expensive=*/false);
    if (NodeDone(newly_ready, &here)) RunLoop(&here);
    return;
  }
  // A late continuation runs on a foreign thread (the sender's): whatever
  // it made ready goes to the device's threads, never runs here.
  NodeDone(newly_ready, ready);
}

void ExecutorState::PropagateOutputs(int id, Tensor* outputs, std::vector<int>* newly_ready) {
  const NodeItem& item = impl_->items_[id];
  for (int e = item.out_begin; e < item.out_end; ++e) {
    const OutEdge& oe = impl_->out_edges_[e];
    if (oe.src_output >= 0) {
      const Tensor& t = outputs[oe.src_output];
      if (!t.IsInitialized()) {
        Fail(errors::Internal(item.kernel->ErrorPrefix(), "output ", oe.src_output,
                              " was not produced but has a consumer"));
        return;
      }
      if (oe.deref) {
        StatusOr<Tensor> value = ReadVariable(t);
        if (!value.ok()) {
          Fail(value.status().WithPrefix(impl_->items_[oe.dst].kernel->ErrorPrefix() + "input " +
                                         std::to_string(oe.dst_input) + ": "));
          return;
        }
        slots_[oe.dst_slot] = std::move(value).value();
      } else {
        slots_[oe.dst_slot] = t;
      }
    }
    if (pending_.DecrementIsReady(oe.dst)) newly_ready->push_back(oe.dst);
  }
}

bool ExecutorState::NodeDone(const std::vector<int>& newly_ready, ReadyQueue* ready) {
  const int n = static_cast<int>(newly_ready.size());
  // Count the successors in before handing any of them to another thread,
  // so that the count cannot reach zero while work is still queued.
  if (outstanding_.fetch_add(n - 1, std::memory_order_acq_rel) + n - 1 == 0) {
    Finish();
    return false;
  }
  int inline_expensive = -1;
  for (int id : newly_ready) {
    const bool expensive = impl_->items_[id].expensive;
    if (ready != nullptr && !expensive) {
      ready->Push(id);
    } else if (ready != nullptr && ready->allows_expensive() && inline_expensive < 0) {
      inline_expensive = id;  // kept for this thread if nothing cheap is left
    } else {
      Dispatch(id);
    }
  }
  if (inline_expensive >= 0) {
    if (ready->empty()) {
      ready->Push(inline_expensive);
    } else {
      Dispatch(inline_expensive);
    }
  }
  return true;
}

void ExecutorState::Fail(const Status& s) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!status_.ok()) return;
    status_ = s;
  }
  aborted_.store(true, std::memory_order_release);
  // Wake every Recv of the step so that nothing waits on a dead step.
  if (args_.rendezvous != nullptr) args_.rendezvous->StartAbort(s);
}

void ExecutorState::Finish() {
  Status s;
  {
    std::lock_guard<std::mutex> lock(mu_);
    s = status_;
  }
  Executor::DoneCallback done = std::move(done_);
  delete this;
  done(s);
}

void ExecutorState::RecordStats(int id, int64_t start, OpKernelContext* ctx) {
  NodeExecStats s;
  s.node_id = id;
  s.node_name = impl_->items_[id].kernel->name();
  s.start_ns = start - start_ns_;
  s.end_ns = NowNs() - start_ns_;
  for (int i = 0; i < ctx->num_outputs(); ++i) {
    const Tensor& t = ctx->outputs()[i];
    s.output_bytes.push_back(t.IsInitialized() ? static_cast<int64_t>(t.TotalBytes()) : -1);
  }
  args_.stats->Add(std::move(s));
}

void ExecutorImpl::RunAsync(const Args& args, DoneCallback done) const {
  (new ExecutorState(this, args, std::move(done)))->Start();
}

}  // namespace

StatusOr<std::unique_ptr<Executor>> Executor::Create(std::shared_ptr<const Graph> graph,
                                                     Device* device) {
  auto impl = std::make_unique<ExecutorImpl>();
  TACT_RETURN_IF_ERROR(impl->Initialize(std::move(graph), device));
  return std::unique_ptr<Executor>(std::move(impl));
}

InlineContinuations::InlineContinuations() { ++inline_continuations; }
InlineContinuations::~InlineContinuations() { --inline_continuations; }
bool InlineContinuations::Allowed() { return inline_continuations > 0; }

}  // namespace tact

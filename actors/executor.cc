#include "actors/executor.h"

#include <atomic>
#include <condition_variable>

#include "actors/executor_graph.h"
#include "actors/frame_executor.h"
#include "actors/pending_counts.h"
#include "actors/ready_queue.h"
#include "actors/send_batch.h"
#include "devices/flush_denormal.h"
#include "graph/ops/control_flow_ops.h"
#include "kernels/rendezvous.h"

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

class ExecutorImpl final : public Executor {
 public:
  void RunAsync(const Args& args, DoneCallback done) const override;
  ExecutorGraph g_;
};

// The state of one step. Deletes itself when the last node has finished.
class ExecutorState {
 public:
  ExecutorState(const ExecutorImpl* impl, const Executor::Args& args, Executor::DoneCallback done)
      : impl_(impl),
        args_(args),
        done_(std::move(done)),
        pending_(impl->g_.initial_pending),
        slots_(impl->g_.num_slots),
        wall_offset_ns_(args.stats ? WallOffsetNs() : 0) {}

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
  OpKernelContext::Params MakeParams(int id) {
    return impl_->g_.MakeParams(id, args_, slots_.data() + impl_->g_.items[id].input_start);
  }
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
    impl_->g_.device->Schedule([this, id] { Process(id); });
  }
  void Fail(const Status& s);
  void Finish();
  void RecordStats(int id, int64_t start, OpKernelContext* ctx) {
    impl_->g_.RecordStats(args_, wall_offset_ns_, id, start, ctx);
  }

  const ExecutorImpl* impl_;
  Executor::Args args_;
  Executor::DoneCallback done_;
  PendingCounts pending_;
  std::vector<Tensor> slots_;        // every node's inputs, by slot index
  std::atomic<int> outstanding_{0};  // nodes ready or running
  std::atomic<bool> aborted_{false};
  std::mutex mu_;
  Status status_;
  int64_t wall_offset_ns_;  // of the step stats (WallOffsetNs at the start)
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
  const std::vector<int>& roots = impl_->g_.roots;
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

void ExecutorState::ReleaseInputs(int id) {
  const NodeItem& item = impl_->g_.items[id];
  for (int i = 0; i < item.num_inputs; ++i) slots_[item.input_start + i] = Tensor();
}

void ExecutorState::RunLoop(ReadyQueue* ready) {
  // Kernels run here on threads that are not the device's too (a CAF
  // thread, a Run caller computing inline): devices/flush_denormal.h.
  ScopedFlushDenormal flush;
  // The cheap kernels' Sends to other tasks leave together, and before an
  // expensive kernel keeps this thread (actors/send_batch.h).
  SendBatch batch;
  std::vector<int> newly_ready;
  while (!ready->empty()) {
    const int id = ready->Pop();
    newly_ready.clear();
    if (!aborted_.load(std::memory_order_acquire)) {
      if (impl_->g_.items[id].is_async) {
        StartAsync(id, ready);
        continue;
      }
      if (impl_->g_.Expensive(id)) SendBatch::Flush();
      RunKernel(id, &newly_ready);
    }
    if (!NodeDone(newly_ready, ready)) return;
  }
}

bool ExecutorState::RunKernel(int id, std::vector<int>* newly_ready) {
  const int64_t start = args_.stats ? NowNs() : 0;
  OpKernelContext ctx(MakeParams(id));
  impl_->g_.Compute(id, &ctx);
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
  impl_->g_.items[id].kernel->AsAsync()->ComputeAsync(&call->ctx, [this, call] {
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
  const NodeItem& item = impl_->g_.items[id];
  for (int e = item.out_begin; e < item.out_end; ++e) {
    const OutEdge& oe = impl_->g_.out_edges[e];
    if (oe.src_output >= 0) {
      const Tensor& t = outputs[oe.src_output];
      if (!t.IsInitialized()) {
        Fail(impl_->g_.MissingOutput(id, oe.src_output));
        return;
      }
      if (oe.deref) {
        StatusOr<Tensor> value = impl_->g_.EdgeValue(oe, t);
        if (!value.ok()) {
          Fail(value.status());
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
    const bool expensive = impl_->g_.Expensive(id);
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

void ExecutorImpl::RunAsync(const Args& args, DoneCallback done) const {
  (new ExecutorState(this, args, std::move(done)))->Start();
}

}  // namespace

StatusOr<std::unique_ptr<Executor>> Executor::Create(std::shared_ptr<const Graph> graph,
                                                     Device* device) {
  // A straight-line graph (no control-flow op, no _Recv that may bring a
  // dead tensor) keeps the executor without frames and dead tensors, whose
  // bookkeeping it would only pay for.
  for (Node* node : graph->nodes()) {
    bool may_be_dead = false;
    if (IsControlFlowOp(node->op()) ||
        (node->op() == "_Recv" && GetAttr(node->attrs(), "may_be_dead", &may_be_dead).ok() &&
         may_be_dead)) {
      return CreateFrameExecutor(std::move(graph), device);
    }
  }
  auto impl = std::make_unique<ExecutorImpl>();
  TACT_RETURN_IF_ERROR(impl->g_.Initialize(std::move(graph), device));
  return std::unique_ptr<Executor>(std::move(impl));
}

InlineContinuations::InlineContinuations() { ++inline_continuations; }
InlineContinuations::~InlineContinuations() { --inline_continuations; }
bool InlineContinuations::Allowed() { return inline_continuations > 0; }

}  // namespace tact

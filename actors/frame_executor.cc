#include "actors/frame_executor.h"

#include <atomic>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "actors/executor_graph.h"
#include "actors/send_batch.h"
#include "actors/step_abort_listener.h"
#include "devices/flush_denormal.h"
#include "graph/control_flow_info.h"
#include "graph/hex.h"
#include "graph/stable_hash.h"
#include "kernels/rendezvous.h"

namespace tact {
namespace {

enum class Kind : uint8_t { kPlain, kSwitch, kMerge, kEnter, kExit, kNextIteration, kSend, kRecv };

Kind KindOf(const std::string& op) {
  if (op == "Switch") return Kind::kSwitch;
  if (op == "Merge") return Kind::kMerge;
  if (IsEnterOp(op)) return Kind::kEnter;
  if (op == "Exit") return Kind::kExit;
  if (op == "NextIteration") return Kind::kNextIteration;
  if (op == "_Send") return Kind::kSend;
  if (op == "_Recv") return Kind::kRecv;
  return Kind::kPlain;
}

// A frame as the graph declares it: the root, or a loop (the frame_name of
// its Enter nodes, within the frame those read from). At run time a loop's
// frame has one instance per iteration of the frame around it.
struct FrameInfo {
  std::string name;  // "" for the root
  int parent = -1;
  int parallel_iterations = 1;
  int num_enters = 0;      // each fires once per instance
  bool is_loop = false;    // it holds a NextIteration
  std::vector<int> nodes;  // by local index
  std::vector<int> exits;
  int num_slots = 0;
  // By local index: the in-edges a node waits for (a Merge: its control
  // edges only), and the data inputs a Merge expects, in the first
  // iteration (Enters, no NextIteration) and in later ones (NextIterations
  // and constant Enters, no other Enter).
  std::vector<int32_t> pending_first, pending_later, data_first, data_later;
};

struct NodeInfo {
  Kind kind = Kind::kPlain;
  int frame = -1;
  int local = -1;
  int local_input_start = 0;
  int child_frame = -1;  // an Enter's frame
  bool constant_enter = false;
  int exit_index = -1;   // an Exit's index in its frame's exits
  bool client_send = false;  // a _Send of a fetch, to the client
};

class FrameExecutor final : public Executor {
 public:
  Status Initialize(std::shared_ptr<const Graph> graph, Device* device) {
    TACT_RETURN_IF_ERROR(g_.Initialize(std::move(graph), device));
    TACT_RETURN_IF_ERROR(AssignFrames());
    return CountInputs();
  }
  void RunAsync(const Args& args, DoneCallback done) const override;

  ExecutorGraph g_;
  std::vector<FrameInfo> frames_;  // [0] is the root
  std::vector<NodeInfo> info_;     // by node id

 private:
  Status AssignFrames();
  Status CountInputs();
};

Status FrameExecutor::AssignFrames() {
  const Graph& graph = *g_.graph;
  TACT_ASSIGN_OR_RETURN(const ControlFlowInfo cf, BuildControlFlowInfo(graph));
  frames_.resize(cf.frames.size());
  for (size_t f = 0; f < cf.frames.size(); ++f) {
    frames_[f].name = cf.frames[f].name;
    frames_[f].parent = cf.frames[f].parent;
    frames_[f].parallel_iterations = cf.frames[f].parallel_iterations;
    frames_[f].is_loop = cf.frames[f].is_loop;
  }
  info_.assign(graph.num_node_ids(), NodeInfo());
  for (Node* n : graph.nodes()) {
    NodeInfo& ni = info_[n->id()];
    ni.kind = KindOf(n->op());
    ni.frame = cf.frame_of[n->id()];
    ni.child_frame = cf.child_frame[n->id()];
    if (ni.kind == Kind::kEnter) {
      if (!GetAttr(n->attrs(), "is_constant", &ni.constant_enter).ok()) ni.constant_enter = false;
      ++frames_[ni.child_frame].num_enters;
    } else if (ni.kind == Kind::kExit) {
      ni.exit_index = static_cast<int>(frames_[ni.frame].exits.size());
      frames_[ni.frame].exits.push_back(n->id());
    } else if (ni.kind == Kind::kSend) {
      bool client = false;
      ni.client_send = GetAttr(n->attrs(), "client_terminated", &client).ok() && client;
      // The client waits for a fetch in the root frame's key; one sent from
      // inside a loop went under its frame and iteration, and the Run never
      // ended.
      if (ni.client_send && ni.frame != 0) {
        const Edge* in = n->in_edges().empty() ? nullptr : n->in_edges().front();
        return errors::InvalidArgument(
            "fetch '", in == nullptr ? n->name() : in->src->name() + ":" + std::to_string(in->src_output),
            "' is a tensor of ", DescribeFrame(ni.frame, frames_[ni.frame].name),
            ": only tensors of the root frame can be fetched (a value leaves a loop through an Exit)");
      }
    }
    FrameInfo& f = frames_[ni.frame];
    ni.local = static_cast<int>(f.nodes.size());
    f.nodes.push_back(n->id());
    ni.local_input_start = f.num_slots;
    f.num_slots += n->num_inputs();
  }
  return Status::OK();
}

Status FrameExecutor::CountInputs() {
  for (FrameInfo& f : frames_) {
    f.pending_first.assign(f.nodes.size(), 0);
    f.pending_later.assign(f.nodes.size(), 0);
    f.data_first.assign(f.nodes.size(), 0);
    f.data_later.assign(f.nodes.size(), 0);
  }
  for (Node* n : g_.graph->nodes()) {
    const NodeInfo& ni = info_[n->id()];
    FrameInfo& f = frames_[ni.frame];
    const int l = ni.local;
    for (const Edge* e : n->in_edges()) {
      const NodeInfo& src = info_[e->src->id()];
      const bool from_next = src.kind == Kind::kNextIteration;
      const bool from_enter = src.kind == Kind::kEnter && !src.constant_enter;
      if (ni.kind == Kind::kMerge) {
        auto& first = e->IsControlEdge() ? f.pending_first : f.data_first;
        auto& later = e->IsControlEdge() ? f.pending_later : f.data_later;
        first[l] += from_next ? 0 : 1;
        later[l] += from_enter ? 0 : 1;
        continue;
      }
      if (from_next) {
        // Only a Merge, or the _Send (and the _Recv's control input) that
        // carries a loop's back edge to another device, with nothing else.
        if (n->in_edges().size() > 1) {
          return errors::InvalidArgument(n->ErrorPrefix(), "takes the output of NextIteration '",
                                         e->src->name(), "' and other inputs: only a Merge may");
        }
        ++f.pending_later[l];  // a NextIteration's value comes in the iteration after
        continue;
      }
      if (from_enter && f.is_loop && n->in_edges().size() > 1) {
        return errors::InvalidArgument(
            n->ErrorPrefix(), "reads Enter '", e->src->name(), "' of ", DescribeFrame(ni.frame, f.name),
            ", which is not constant, and other inputs: only a Merge may (a value that every "
            "iteration reads enters with is_constant=true)");
      }
      // A node whose one input is such an Enter (the _Send that carries it
      // to another device) runs in the first iteration only: in later
      // ones its input never comes.
      ++f.pending_first[l];
      ++f.pending_later[l];
    }
  }
  return Status::OK();
}

// One iteration of one frame instance: what its nodes still wait for and
// their inputs.
struct Iteration {
  Iteration(const FrameInfo& f, uint64_t frame_id, int64_t n)
      : number(n),
        tag(f.parent < 0 ? std::string() : Tag(frame_id, n)),
        pending(n == 0 ? f.pending_first : f.pending_later),
        dead(f.nodes.size(), 0),
        merge(f.nodes.size(), kWaiting),
        slots(f.num_slots) {}
  enum MergeState : uint8_t { kWaiting, kHasValue, kFired };
  static std::string Tag(uint64_t frame_id, int64_t n) {
    std::string tag = ";";
    tag += HexEncode(frame_id);
    tag += ':';
    tag += std::to_string(n);
    return tag;
  }
  int64_t number;
  std::string tag;               // the kernels' frame_iter; empty in the root
  std::vector<int32_t> pending;  // by local index
  std::vector<int32_t> dead;     // dead inputs seen (a Merge: dead data inputs)
  std::vector<uint8_t> merge;    // MergeState, for Merges
  std::vector<Tensor> slots;
  // Its nodes ready or running, and the loops entered from it not yet done.
  int outstanding = 0;
};

struct Frame {
  struct Value {
    int node;
    Tensor tensor;
    bool dead;
  };
  using Key = std::pair<int64_t, int>;  // (parent iteration, static frame)

  Frame(const FrameInfo& fi, Frame* p, Iteration* pi, Key k)
      : info(fi), parent(p), parent_iter(pi), key(k),
        // The same instance of a frame has the same id in every partition
        // of the step, so that their transfers' keys meet.
        id(p == nullptr ? 0
                        : StableHash(HexEncode(p->id) + "/" + fi.name + "/" +
                                     std::to_string(k.first))),
        pending_enters(fi.num_enters), exit_live(fi.exits.size(), 0) {}

  // The live iteration `n`, or null.
  Iteration* Find(int64_t n) const {
    if (iterations.empty()) return nullptr;
    const int64_t first = iterations.front()->number;
    if (n < first || n - first >= static_cast<int64_t>(iterations.size())) return nullptr;
    return iterations[n - first].get();
  }

  const FrameInfo& info;
  Frame* parent;
  Iteration* parent_iter;  // lives while this frame does (it counts the frame)
  Key key;
  uint64_t id;
  int pending_enters;
  std::deque<std::unique_ptr<Iteration>> iterations;  // oldest first, numbers consecutive
  std::vector<Value> invariants;  // constant Enters' values, for each new iteration
  std::vector<Value> deferred;    // NextIteration values for the iteration after the newest
  std::vector<uint8_t> exit_live;
  std::map<Key, std::unique_ptr<Frame>> children;
};

// A node of a step, tagged with where it runs.
struct Tagged {
  int id;
  Frame* frame;
  Iteration* iter;
  bool dead;
};

// The state of one step. Deletes itself when the last node has finished.
class FrameState {
 public:
  FrameState(const FrameExecutor* ex, const Executor::Args& args, Executor::DoneCallback done)
      : ex_(ex), g_(ex->g_), args_(args), done_(std::move(done)),
        wall_offset_ns_(args.stats ? WallOffsetNs() : 0) {}
  void Start();

 private:
  struct Ready {
    std::deque<Tagged> nodes;
    bool allows_expensive;
  };
  struct AsyncCall;

  void RunLoop(Ready* ready);
  void StartAsync(const Tagged& t, Ready* ready);
  void FinishAsync(AsyncCall* call, Ready* ready);
  OpKernelContext::Params Params(const Tagged& t) const {
    OpKernelContext::Params p = g_.MakeParams(t.id, args_, Inputs(t));
    if (!t.iter->tag.empty()) p.frame_iter = &t.iter->tag;
    return p;
  }
  Tensor* Inputs(const Tagged& t) const {
    return t.iter->slots.data() + ex_->info_[t.id].local_input_start;
  }
  void ReleaseInputs(const Tagged& t) {
    Tensor* in = Inputs(t);
    for (int i = 0; i < g_.items[t.id].num_inputs; ++i) in[i] = Tensor();
  }
  // Node `t` is finished: hands its outputs on (none if it did not run and
  // is not dead) and queues what became ready. False if the step finished
  // (and `this` is gone).
  bool NodeDone(const Tagged& t, const Tensor* outputs, Ready* ready);
  void Schedule(const std::vector<Tagged>& newly, Ready* ready);
  void Dispatch(const Tagged& t);

  // The rest runs under mu_.
  void Activate(const Tagged& t, const Tensor* outputs);
  void Deliver(int src, const Tensor* outputs, bool dead, Frame* f, Iteration* it);
  void Push(const Tagged& t) {
    ++t.iter->outstanding;
    ++outstanding_;
    newly_.push_back(t);
  }
  Frame* EnterFrame(const Tagged& t, int child);
  Iteration* NewIteration(Frame* f, int64_t number);
  // Frees `f`'s finished iterations, starts a deferred one, and ends the
  // frame (and then maybe its parents) once nothing in it can run.
  void Retire(Frame* f);

  void Fail(const Status& s);
  void Finish();

  // The step's abort from outside (its timeout, a lost task, Close) fails
  // the Recvs and queue waits of the step; a loop that waits on neither
  // heard nothing of it, and one whose condition never turned false ran on
  // past its step's timeout, for ever. So the step listens to it
  // (abort_listener_) and stops starting nodes, as after its own error.
  void AbortedFromOutside(const Status& s);

  const FrameExecutor* ex_;
  const ExecutorGraph& g_;
  Executor::Args args_;
  Executor::DoneCallback done_;
  int64_t wall_offset_ns_;  // of the step stats (WallOffsetNs at the start)
  std::atomic<bool> aborted_{false};

  std::mutex mu_;
  std::unique_ptr<Frame> root_;
  int64_t outstanding_ = 0;     // nodes ready or running, in every frame
  std::vector<Tagged> newly_;   // made ready by the current Activate
  Status error_;                // met by the current Activate

  std::mutex status_mu_;
  Status status_;

  StepAbortListener abort_listener_;
};

struct FrameState::AsyncCall {
  AsyncCall(const Tagged& tagged, const OpKernelContext::Params& p, int64_t s)
      : t(tagged), params(p), ctx(params), start(s) {}
  Tagged t;
  OpKernelContext::Params params;
  OpKernelContext ctx;
  int64_t start;
  // 0: inside ComputeAsync; 1: it returned; 2: done was called (see
  // actors/executor.cc: a continuation that runs before ComputeAsync
  // returns leaves the work to the calling loop).
  std::atomic<int> phase{0};
};

void FrameState::Start() {
  abort_listener_.Start(args_.rendezvous, [this](const Status& s) { AbortedFromOutside(s); });
  std::vector<Tagged> roots;
  {
    std::lock_guard<std::mutex> lock(mu_);
    root_ = std::make_unique<Frame>(ex_->frames_[0], nullptr, nullptr, Frame::Key{0, 0});
    Iteration* it = NewIteration(root_.get(), 0);
    for (int id : g_.roots) Push({id, root_.get(), it, false});
    roots.swap(newly_);
  }
  if (roots.empty()) {
    Finish();
    return;
  }
  Ready ready{{}, args_.caller_may_compute};
  Schedule(roots, &ready);
  RunLoop(&ready);
}

void FrameState::RunLoop(Ready* ready) {
  ScopedFlushDenormal flush;  // this and the batch: as in actors/executor.cc
  SendBatch batch;
  while (!ready->nodes.empty()) {
    const Tagged t = ready->nodes.front();
    ready->nodes.pop_front();
    const Tensor* outputs = nullptr;
    OpKernelContext::Params params;
    std::optional<OpKernelContext> ctx;  // on the stack: no allocation per node
    const NodeInfo& ni = ex_->info_[t.id];
    if (aborted_.load(std::memory_order_acquire)) {
      // Counted out, nothing run.
    } else if (t.dead && !(ni.kind == Kind::kSend && !ni.client_send)) {
      // A dead node runs no kernel; a dead _Send to another device still
      // runs, to tell its _Recv, but a fetch of a dead tensor is an error.
      if (ni.kind == Kind::kSend) {
        Fail(errors::InvalidArgument(
            g_.items[t.id].kernel->ErrorPrefix(),
            "its input is dead (computed on a branch that a Switch did not take), so it cannot "
            "be fetched"));
      }
    } else if (g_.items[t.id].is_async) {
      StartAsync(t, ready);
      continue;
    } else {
      if (g_.Expensive(t.id)) SendBatch::Flush();
      const int64_t start = args_.stats ? NowNs() : 0;
      params = Params(t);
      ctx.emplace(params);
      g_.Compute(t.id, &*ctx);
      ReleaseInputs(t);
      if (args_.stats) g_.RecordStats(args_, wall_offset_ns_, t.id, start, &*ctx);
      if (ctx->status().ok()) {
        outputs = ctx->outputs();
      } else {
        Fail(ctx->status());
      }
    }
    if (!NodeDone(t, outputs, ready)) return;
  }
}

void FrameState::StartAsync(const Tagged& t, Ready* ready) {
  auto* call = new AsyncCall(t, Params(t), args_.stats ? NowNs() : 0);
  g_.items[t.id].kernel->AsAsync()->ComputeAsync(&call->ctx, [this, call] {
    if (call->phase.exchange(2) == 0) return;
    FinishAsync(call, nullptr);
  });
  if (call->phase.exchange(1) == 2) FinishAsync(call, ready);
}

void FrameState::FinishAsync(AsyncCall* call, Ready* ready) {
  const Tagged t = call->t;
  ReleaseInputs(t);
  if (args_.stats) g_.RecordStats(args_, wall_offset_ns_, t.id, call->start, &call->ctx);
  const Tensor* outputs = nullptr;
  if (call->ctx.status().ok()) {
    outputs = call->ctx.outputs();
  } else {
    Fail(call->ctx.status());
  }
  // A late continuation runs on a foreign thread (the sender's): what it
  // made ready goes to the device, unless the thread allows cheap work.
  const bool run_here = ready == nullptr && InlineContinuations::Allowed();
  Ready here{{}, false};
  const bool going = NodeDone(t, outputs, run_here ? &here : ready);
  delete call;
  if (going && run_here) RunLoop(&here);
}

bool FrameState::NodeDone(const Tagged& t, const Tensor* outputs, Ready* ready) {
  std::vector<Tagged> newly;
  Status error;
  bool finished;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const bool aborted = aborted_.load(std::memory_order_acquire);
    if (!aborted && (t.dead || outputs != nullptr)) Activate(t, outputs);
    --t.iter->outstanding;
    --outstanding_;
    if (!aborted) Retire(t.frame);
    newly.swap(newly_);
    error = std::move(error_);
    error_ = Status::OK();
    finished = outstanding_ == 0;
  }
  // Fail aborts the rendezvous, whose callbacks may run here: never under mu_.
  if (!error.ok()) Fail(error);
  if (finished) {
    Finish();
    return false;
  }
  Schedule(newly, ready);
  return true;
}

void FrameState::Schedule(const std::vector<Tagged>& newly, Ready* ready) {
  // As in actors/executor.cc: cheap nodes (and dead ones, which run no
  // kernel) stay on this thread, the last expensive one too if nothing
  // cheap is left; other expensive ones go to the device's threads.
  const Tagged* keep = nullptr;
  for (const Tagged& n : newly) {
    const bool expensive = !n.dead && g_.Expensive(n.id);
    if (ready != nullptr && !expensive) {
      ready->nodes.push_back(n);
    } else if (ready != nullptr && ready->allows_expensive && keep == nullptr) {
      keep = &n;
    } else {
      Dispatch(n);
    }
  }
  if (keep != nullptr) {
    if (ready->nodes.empty()) {
      ready->nodes.push_back(*keep);
    } else {
      Dispatch(*keep);
    }
  }
}

void FrameState::Dispatch(const Tagged& t) {
  g_.device->Schedule([this, t] {
    Ready ready{{t}, true};
    RunLoop(&ready);
  });
}

void FrameState::Activate(const Tagged& t, const Tensor* outputs) {
  const NodeInfo& ni = ex_->info_[t.id];
  switch (ni.kind) {
    case Kind::kEnter: {
      Frame* child = EnterFrame(t, ni.child_frame);
      --child->pending_enters;
      if (ni.constant_enter) {
        child->invariants.push_back({t.id, t.dead ? Tensor() : outputs[0], t.dead});
        for (auto& it : child->iterations) Deliver(t.id, outputs, t.dead, child, it.get());
      } else {
        // Iteration 0 lives until every Enter has come.
        Deliver(t.id, outputs, t.dead, child, child->iterations.front().get());
      }
      Retire(child);  // an Enter that made nothing ready may have ended it
      return;
    }
    case Kind::kExit:
      if (t.dead) return;  // delivered dead when the frame ends, if never live
      t.frame->exit_live[ni.exit_index] = 1;
      Deliver(t.id, outputs, false, t.frame->parent, t.frame->parent_iter);
      return;
    case Kind::kNextIteration: {
      if (t.dead) return;  // the loop ends here
      const int64_t n = t.iter->number + 1;
      Iteration* next = t.frame->Find(n);
      if (next == nullptr) {
        if (static_cast<int>(t.frame->iterations.size()) >= t.frame->info.parallel_iterations) {
          t.frame->deferred.push_back({t.id, outputs[0], false});
          return;
        }
        next = NewIteration(t.frame, n);
      }
      Deliver(t.id, outputs, false, t.frame, next);
      return;
    }
    default:
      Deliver(t.id, outputs, t.dead, t.frame, t.iter);
  }
}

void FrameState::Deliver(int src, const Tensor* outputs, bool dead, Frame* f, Iteration* it) {
  const NodeItem& item = g_.items[src];
  // A Switch's untaken output, and a _Recv of a dead tensor.
  const bool may_leave_unset =
      ex_->info_[src].kind == Kind::kSwitch || ex_->info_[src].kind == Kind::kRecv;
  const FrameInfo& fi = f->info;
  for (int e = item.out_begin; e < item.out_end; ++e) {
    const OutEdge& oe = g_.out_edges[e];
    const NodeInfo& dst = ex_->info_[oe.dst];
    const int l = dst.local;
    const bool control = oe.src_output < 0;
    bool edge_dead = dead;
    Tensor value;
    if (!dead && !control) {
      const Tensor& out = outputs[oe.src_output];
      if (!out.IsInitialized()) {
        if (!may_leave_unset && error_.ok()) error_ = g_.MissingOutput(src, oe.src_output);
        edge_dead = true;
      } else if (!oe.deref) {
        value = out;
      } else {
        StatusOr<Tensor> v = g_.EdgeValue(oe, out);
        if (v.ok()) {
          value = std::move(v).value();
        } else {
          if (error_.ok()) error_ = v.status();
          edge_dead = true;
        }
      }
    }
    if (dst.kind == Kind::kMerge) {
      uint8_t& state = it->merge[l];
      if (state == Iteration::kFired) continue;  // later inputs of a Merge are dropped
      if (control) {
        --it->pending[l];
      } else if (edge_dead) {
        ++it->dead[l];
      } else if (state == Iteration::kWaiting) {
        it->slots[dst.local_input_start + oe.dst_input] = std::move(value);
        state = Iteration::kHasValue;
      }
      const int32_t expected = it->number == 0 ? fi.data_first[l] : fi.data_later[l];
      if (it->pending[l] == 0 && (state == Iteration::kHasValue || it->dead[l] == expected)) {
        const bool merge_dead = state != Iteration::kHasValue;
        state = Iteration::kFired;
        Push({oe.dst, f, it, merge_dead});
      }
      continue;
    }
    if (edge_dead) {
      ++it->dead[l];
    } else if (!control) {
      it->slots[dst.local_input_start + oe.dst_input] = std::move(value);
    }
    if (--it->pending[l] == 0) Push({oe.dst, f, it, it->dead[l] > 0});
  }
}

Frame* FrameState::EnterFrame(const Tagged& t, int child) {
  const Frame::Key key{t.iter->number, child};
  auto found = t.frame->children.find(key);
  if (found != t.frame->children.end()) return found->second.get();
  auto frame = std::make_unique<Frame>(ex_->frames_[child], t.frame, t.iter, key);
  Frame* f = frame.get();
  t.frame->children.emplace(key, std::move(frame));
  ++t.iter->outstanding;
  NewIteration(f, 0);
  return f;
}

Iteration* FrameState::NewIteration(Frame* f, int64_t number) {
  f->iterations.push_back(std::make_unique<Iteration>(f->info, f->id, number));
  Iteration* it = f->iterations.back().get();
  for (const Frame::Value& v : f->invariants) {
    Deliver(v.node, v.dead ? nullptr : &v.tensor, v.dead, f, it);
  }
  return it;
}

void FrameState::Retire(Frame* f) {
  // The root's iteration lives for the whole step; outstanding_ ends it.
  while (f != root_.get()) {
    while (!f->iterations.empty()) {
      const Iteration& oldest = *f->iterations.front();
      // An iteration waits for the one before it (which may still send it
      // values), and the first for every Enter.
      if (oldest.outstanding > 0 || (oldest.number == 0 && f->pending_enters > 0)) return;
      const int64_t next = f->iterations.back()->number + 1;
      f->iterations.pop_front();
      if (!f->deferred.empty()) {
        std::vector<Frame::Value> values;
        values.swap(f->deferred);
        Iteration* it = NewIteration(f, next);
        for (const Frame::Value& v : values) Deliver(v.node, &v.tensor, false, f, it);
      }
    }
    // Nothing of the frame can run again: its Exits that never saw a live
    // value deliver a dead one, and the frame is gone.
    Frame* parent = f->parent;
    Iteration* parent_iter = f->parent_iter;
    for (size_t i = 0; i < f->exit_live.size(); ++i) {
      if (!f->exit_live[i]) Deliver(f->info.exits[i], nullptr, true, parent, parent_iter);
    }
    --parent_iter->outstanding;
    parent->children.erase(f->key);
    f = parent;
  }
}

void FrameState::Fail(const Status& s) {
  {
    std::lock_guard<std::mutex> lock(status_mu_);
    if (!status_.ok()) return;
    status_ = s;
  }
  aborted_.store(true, std::memory_order_release);
  if (args_.rendezvous != nullptr) args_.rendezvous->StartAbort(s);
}

// Not Fail: the rendezvous is aborted already, and its callbacks may be
// running here.
void FrameState::AbortedFromOutside(const Status& s) {
  {
    std::lock_guard<std::mutex> lock(status_mu_);
    if (status_.ok()) status_ = s;
  }
  aborted_.store(true, std::memory_order_release);
}

void FrameState::Finish() {
  abort_listener_.Stop();
  Status s;
  {
    std::lock_guard<std::mutex> lock(status_mu_);
    s = status_;
  }
  Executor::DoneCallback done = std::move(done_);
  delete this;
  done(s);
}

void FrameExecutor::RunAsync(const Args& args, DoneCallback done) const {
  (new FrameState(this, args, std::move(done)))->Start();
}

}  // namespace

StatusOr<std::unique_ptr<Executor>> CreateFrameExecutor(std::shared_ptr<const Graph> graph,
                                                        Device* device) {
  auto ex = std::make_unique<FrameExecutor>();
  TACT_RETURN_IF_ERROR(ex->Initialize(std::move(graph), device));
  return std::unique_ptr<Executor>(std::move(ex));
}

}  // namespace tact

// The Send and Recv endpoint actors (actors/endpoints.h says what they are
// for; actors/messages.h declares them).
#include <deque>
#include <functional>
#include <iterator>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "actors/messages.h"

namespace tact {
namespace {

// How many steps (or iterations of a loop in one) a Recv endpoint holds tensors for that its Recv has not
// asked for: a step that failed here before its Recv ran, and was not
// aborted, must not keep its tensor for ever.
constexpr size_t kHeldSteps = 1024;
// How many aborted steps a Recv endpoint remembers, to fail their late
// Recvs and drop their late tensors.
constexpr size_t kAbortedSteps = 4096;

// What a Recv endpoint matches: a step and, inside a loop, an iteration
// (the key's tag, kernels/rendezvous.h: SplitFrameIter).
using Slot = std::pair<int64_t, std::string>;

Slot SlotOf(int64_t step_id, const std::string& key) {
  const std::string_view tag = SplitFrameIter(key).second;
  return {step_id, tag.empty() ? std::string() : std::string(tag)};
}

struct SlotHash {
  size_t operator()(const Slot& s) const {
    return std::hash<int64_t>()(s.first) * 31 + std::hash<std::string>()(s.second);
  }
};

struct RecvState {
  std::string key;
  std::unordered_map<Slot, Tensor, SlotHash> held;  // sent, not yet asked for
  std::deque<Slot> held_order;  // oldest first; may name slots since taken
  std::unordered_map<Slot, std::shared_ptr<RecvCall>, SlotHash> waiting;  // asked for, not yet sent
  std::unordered_map<int64_t, Status> aborted;
  std::deque<int64_t> aborted_order;
};

using RecvSelf = caf::stateful_actor<RecvState>;

void Hold(RecvState& st, Slot slot, Tensor tensor) {
  if (!st.held.emplace(slot, std::move(tensor)).second) return;  // a slot's second tensor: kept first
  st.held_order.push_back(std::move(slot));
  while (st.held_order.size() > kHeldSteps) {
    st.held.erase(st.held_order.front());
    st.held_order.pop_front();
  }
}

void Abort(RecvState& st, const WireAbortStep& abort) {
  const Status status = abort.status.ok() ? errors::Aborted("step ", abort.step_id, " was aborted")
                                          : abort.status;
  if (!st.aborted.emplace(abort.step_id, status).second) return;
  st.aborted_order.push_back(abort.step_id);
  if (st.aborted_order.size() > kAbortedSteps) {
    st.aborted.erase(st.aborted_order.front());
    st.aborted_order.pop_front();
  }
  // Every iteration's slot of the step (aborts are rare: a scan will do).
  for (auto it = st.held.begin(); it != st.held.end();) {
    it = it->first.first == abort.step_id ? st.held.erase(it) : std::next(it);
  }
  std::vector<std::shared_ptr<RecvCall>> calls;
  for (auto it = st.waiting.begin(); it != st.waiting.end();) {
    if (it->first.first != abort.step_id) {
      ++it;
      continue;
    }
    calls.push_back(std::move(it->second));
    it = st.waiting.erase(it);
  }
  for (const auto& call : calls) call->Answer(status, Tensor());
}

caf::behavior RecvBehavior(RecvSelf* self, std::string key) {
  self->state.key = std::move(key);
  return {
      [self](WireRendezvousTensor& m) {
        RecvState& st = self->state;
        if (st.aborted.count(m.step_id)) return;  // late: the step is over here
        Slot slot = SlotOf(m.step_id, m.key);
        auto it = st.waiting.find(slot);
        if (it == st.waiting.end()) {
          Hold(st, std::move(slot), std::move(m.tensor));
          return;
        }
        std::shared_ptr<RecvCall> call = std::move(it->second);
        st.waiting.erase(it);
        call->Answer(Status::OK(), m.tensor);
      },
      [self](std::shared_ptr<RecvCall>& call) {
        RecvState& st = self->state;
        if (auto a = st.aborted.find(call->step_id); a != st.aborted.end()) {
          call->Answer(a->second, Tensor());
          return;
        }
        Slot slot = SlotOf(call->step_id, call->key);
        if (auto h = st.held.find(slot); h != st.held.end()) {
          Tensor t = std::move(h->second);
          st.held.erase(h);
          call->Answer(Status::OK(), t);
          return;
        }
        if (st.waiting.count(slot)) {
          call->Answer(errors::AlreadyExists("rendezvous key '", call->key, "' was received twice in step ",
                                             call->step_id),
                       Tensor());
          return;
        }
        st.waiting.emplace(std::move(slot), std::move(call));
      },
      [self](const WireAbortStep& abort) { Abort(self->state, abort); },
      [self](endpoint_end_atom) { self->quit(); },  // a waiting RecvCall answers as it goes
  };
}

struct SendState {
  std::string key;
  SendRoute route;
  caf::actor recv;  // the local Recv endpoint, once found
  uint64_t recvs_ended = 0;  // route.recvs_ended when `recv` was found
};

using SendSelf = caf::stateful_actor<SendState>;

caf::behavior SendBehavior(SendSelf* self, std::string key, SendRoute route) {
  self->state.key = std::move(key);
  self->state.route = std::move(route);
  return {
      [self](std::shared_ptr<SendCall>& call) {
        SendState& st = self->state;
        if (st.route.remote) {
          const WireRendezvousTensor& m = call->tensor;
          call->Answer(st.route.remote(st.route.recv_task, m.step_id, m.key, m.tensor));
          return;
        }
        const uint64_t ended = st.route.recvs_ended->load(std::memory_order_acquire);
        if (!st.recv || ended != st.recvs_ended) {
          st.recv = st.route.find_recv();
          st.recvs_ended = ended;
        }
        if (!st.recv) {
          call->Answer(errors::Internal("no Recv endpoint for rendezvous key '", st.key, "' in this task"));
          return;
        }
        // Queued on this thread: it runs after this message, so the Send
        // kernel's completion comes first (actors/inline_unit.h).
        self->send(st.recv, std::move(call->tensor));
        call->Answer(Status::OK());
      },
      [self](endpoint_end_atom) { self->quit(); },
  };
}

}  // namespace

RecvCall::~RecvCall() {
  if (done) {
    done(errors::Unavailable("the Recv endpoint for rendezvous key '", key, "' ended before step ",
                             step_id, "'s tensor arrived"),
         Tensor());
  }
}

SendCall::~SendCall() {
  if (done) {
    done(errors::Unavailable("the Send endpoint for rendezvous key '", tensor.key,
                             "' ended before it handed on step ", tensor.step_id, "'s tensor"));
  }
}

void SendCall::Answer(const Status& status) {
  Rendezvous::SentCallback d = std::move(done);
  done = nullptr;
  if (d) d(status);
}

void RecvCall::Answer(const Status& status, const Tensor& tensor) {
  Rendezvous::DoneCallback d = std::move(done);
  done = nullptr;
  if (d) d(status, tensor);
}

// Lazily initialised: an endpoint starts idle, so that its first message
// runs on the sender's thread like every later one (actors/inline_unit.h),
// rather than waiting for the scheduler to have started it.
caf::actor SpawnRecvEndpoint(caf::event_based_actor* owner, std::string key) {
  return owner->spawn<caf::linked + caf::lazy_init>(RecvBehavior, std::move(key));
}

caf::actor SpawnSendEndpoint(caf::event_based_actor* owner, std::string key, SendRoute route) {
  return owner->spawn<caf::linked + caf::lazy_init>(SendBehavior, std::move(key), std::move(route));
}

}  // namespace tact

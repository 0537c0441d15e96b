// The partition actor (paper 3.2: each device's subgraph runs where it was
// placed). It owns its executor; each WireRunStep is one step, answered
// with one WireStepDone. A step's feeds and fetches pass through the
// step's rendezvous in this task (paper 4.2), as do the tensors that its
// Sends and Recvs exchange with the step's other partitions here.
#include <algorithm>
#include <deque>
#include <unordered_set>

#include "actors/messages.h"
#include "actors/rendezvous_mgr.h"
#include "graph/subgraph.h"
#include "kernels/rendezvous.h"

namespace tact {
namespace {

// How many step ids a partition remembers, to run a step delivered twice
// once (a master that resends after a lost connection).
constexpr size_t kRememberedSteps = 1024;

struct PartitionState {
  std::shared_ptr<const Executor> executor;
  Device* device = nullptr;
  // Fixed at registration; shared with every step's completion.
  std::shared_ptr<const WireRegisterPartition> reg;
  std::shared_ptr<RendezvousMgr> rendezvous;  // of this task's steps
  std::unordered_set<int64_t> steps_seen;
  std::deque<int64_t> steps_seen_order;
};

// False for a step this partition has run (or started) already.
bool FirstDelivery(PartitionState& st, int64_t step_id) {
  if (!st.steps_seen.insert(step_id).second) return false;
  st.steps_seen_order.push_back(step_id);
  if (st.steps_seen_order.size() > kRememberedSteps) {
    st.steps_seen.erase(st.steps_seen_order.front());
    st.steps_seen_order.pop_front();
  }
  return true;
}

using Self = caf::stateful_actor<PartitionState>;

// The feeds of a RunStep must be exactly the registered ones.
Status CheckFeeds(const WireRegisterPartition& reg, const WireRunStep& step) {
  if (step.handle != reg.handle) {
    return errors::InvalidArgument("RunStep for partition '", step.handle, "' reached partition '",
                                   reg.handle, "'");
  }
  // A linked feed arrives on the tensor link, in the step's rendezvous.
  for (const std::string& want : reg.feeds) {
    bool found = std::count(step.linked_feeds.begin(), step.linked_feeds.end(), want) > 0;
    for (const auto& [name, t] : step.feeds) found = found || name == want;
    if (!found) return errors::InvalidArgument("step ", step.step_id, " lacks feed '", want, "'");
  }
  const size_t given = step.feeds.size() + step.linked_feeds.size();
  if (given != reg.feeds.size()) {
    return errors::InvalidArgument("step ", step.step_id, " has ", given, " feeds; partition '",
                                   reg.handle, "' takes ", reg.feeds.size());
  }
  return Status::OK();
}

// Collects the fetches of a finished step from its rendezvous.
WireStepDone Finish(const WireRegisterPartition& reg, const std::string& device, int64_t step_id,
                    Status status, Rendezvous* rendezvous, StepStats* stats) {
  WireStepDone done;
  done.step_id = step_id;
  done.handle = reg.handle;
  if (status.ok()) {
    for (const std::string& f : reg.fetches) {
      // The step is over, so every _Send has run: Recv returns at once.
      StatusOr<Tensor> t = rendezvous->Recv(FetchKey(device, f));
      if (!t.ok()) {
        status = t.status();
        done.fetched.clear();
        break;
      }
      done.fetched.emplace_back(f, std::move(t).value());
    }
  }
  done.status = std::move(status);
  if (stats != nullptr) {
    done.stats = stats->nodes();
    for (NodeExecStats& n : done.stats) n.device = device;
  }
  return done;
}

void RunStep(Self* self, WireRunStep& step) {
  PartitionState& st = self->state;
  // The first delivery answers; a second must not run the step again.
  if (!FirstDelivery(st, step.step_id)) return;
  caf::actor master = caf::actor_cast<caf::actor>(self->current_sender());
  std::shared_ptr<Rendezvous> rendezvous =
      st.rendezvous->Find(step.step_id, static_cast<int>(st.reg->partitions_in_task));
  Status s = CheckFeeds(*st.reg, step);
  for (auto& [name, t] : step.feeds) {
    if (s.ok()) s = rendezvous->Send(FeedKey(st.device->name(), name), t);
  }
  if (!s.ok()) {
    // The step's other partitions here must not wait for this one.
    rendezvous->StartAbort(s);
    st.rendezvous->Release(step.step_id);
    self->send(master, Finish(*st.reg, st.device->name(), step.step_id, s, nullptr, nullptr));
    return;
  }
  auto stats = step.collect_stats ? std::make_shared<StepStats>() : nullptr;
  Executor::Args args;
  args.step_id = step.step_id;
  args.rendezvous = rendezvous.get();
  args.stats = stats.get();
  args.default_container = &st.reg->container;
  // This CAF thread starts the step but runs only its cheap kernels; every
  // expensive one goes to the device's threads. (Handing the whole step to
  // the device instead costs a thread wake-up, ~20 us here, on every Run.)
  args.caller_may_compute = false;
  // The callback holds what the step points into until it is over.
  st.executor->RunAsync(args, [master, rendezvous, stats, step_id = step.step_id,
                               executor = st.executor, reg = st.reg, mgr = st.rendezvous,
                               device = st.device](const Status& status) {
    WireStepDone done =
        Finish(*reg, device->name(), step_id, status, rendezvous.get(), stats.get());
    mgr->Release(step_id);
    caf::anon_send(master, std::move(done));
  });
}

caf::behavior PartitionBehavior(Self* self, Device* device,
                                std::shared_ptr<const Executor> executor,
                                std::shared_ptr<RendezvousMgr> rendezvous,
                                WireRegisterPartition reg) {
  self->state.executor = std::move(executor);
  self->state.device = device;
  self->state.rendezvous = std::move(rendezvous);
  reg.graph = GraphDef();  // the executor holds the graph
  self->state.reg = std::make_shared<const WireRegisterPartition>(std::move(reg));
  return {
      [self](WireRunStep& step) { RunStep(self, step); },
      [self](const WireAbortStep& abort) {
        self->state.rendezvous->Abort(abort.step_id, abort.status);
      },
  };
}

}  // namespace

caf::actor SpawnPartition(caf::event_based_actor* device_actor, Device* device,
                          std::shared_ptr<const Executor> executor,
                          std::shared_ptr<RendezvousMgr> rendezvous, WireRegisterPartition reg) {
  // Linked: the partition ends with its device actor.
  return device_actor->spawn<caf::linked>(PartitionBehavior, device, std::move(executor),
                                          std::move(rendezvous), std::move(reg));
}

}  // namespace tact

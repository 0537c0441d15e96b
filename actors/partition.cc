#include "actors/partition.h"

#include <algorithm>

#include "actors/rendezvous_mgr.h"
#include "devices/device.h"
#include "graph/subgraph.h"
#include "kernels/rendezvous.h"

namespace tact {
namespace {

// How many step ids a partition remembers, to run a step delivered twice
// once (a master that resends after a lost connection), and to tell a
// follower whether its step has ended.
constexpr size_t kRememberedSteps = 1024;

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
      // The step is over, so every _Send has run. A fetch sent under
      // another key (from inside a loop's frame) made a Recv here wait for
      // ever: one that is not there fails the step instead.
      StatusOr<Tensor> t = rendezvous->RecvSent(
          FetchKey(device, f), errors::Internal("fetch '", f, "' was not sent by the step that ended"));
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

// Runs `fn` now, unless this thread is already inside a call of it: then
// after that call's `fn`. A follower whose kernels are all cheap ends while
// it starts, on this thread, and would start its own follower one call
// deeper, and so on down the stack for a long queue of them.
void Unnested(std::function<void()> fn) {
  thread_local std::deque<std::function<void()>>* queue = nullptr;
  if (queue != nullptr) {
    queue->push_back(std::move(fn));
    return;
  }
  std::deque<std::function<void()>> later;
  queue = &later;
  fn();
  while (!later.empty()) {
    std::function<void()> next = std::move(later.front());
    later.pop_front();
    next();
  }
  queue = nullptr;
}

}  // namespace

Partition::Partition(Device* device, std::shared_ptr<const Executor> executor,
                     std::shared_ptr<RendezvousMgr> rendezvous, WireRegisterPartition reg)
    : device_(device),
      executor_(std::move(executor)),
      rendezvous_(std::move(rendezvous)),
      reg_(std::make_shared<const WireRegisterPartition>([&] {
        reg.graph = GraphDef();  // the executor holds the graph
        return std::move(reg);
      }())) {}

bool Partition::FirstDelivery(int64_t step_id) {
  if (!steps_.emplace(step_id, std::nullopt).second) return false;
  steps_order_.push_back(step_id);
  if (steps_order_.size() > kRememberedSteps) {
    steps_.erase(steps_order_.front());
    steps_order_.pop_front();
  }
  return true;
}

void Partition::Run(WireRunStep& step, Reply reply) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!FirstDelivery(step.step_id)) return;
  if (step.after_step != 0) {
    auto ended = steps_.find(step.after_step);
    if (ended == steps_.end() || !ended->second.has_value()) {
      const int64_t after = step.after_step;
      auto other = waiting_.find(after);
      if (other == waiting_.end()) {
        waiting_.emplace(after, Follower{std::move(step), std::move(reply)});
        return;
      }
      // The master gives a step one follower; a second is answered, not dropped.
      const Status twice = errors::Internal("step ", step.step_id, " follows step ", after, ", which step ",
                                            other->second.step.step_id, " already follows here");
      lock.unlock();
      End(Follower{std::move(step), std::move(reply)}, twice);
      return;
    }
    if (!ended->second->ok()) {
      const Status why = *ended->second;
      lock.unlock();
      Fail(Follower{std::move(step), std::move(reply)}, why);
      return;
    }
  }
  lock.unlock();
  Start(step, std::move(reply));
}

void Partition::Fail(Follower f, const Status& why) {
  const Status s = FollowerAborted(f.step.after_step, f.step.step_id, why);
  End(std::move(f), s);
}

void Partition::End(Follower f, const Status& why) {
  // Its linked feeds may wait in its rendezvous, and the step's other
  // partitions here must not wait for this one.
  std::shared_ptr<Rendezvous> rendezvous =
      rendezvous_->Find(f.step.step_id, static_cast<int>(reg_->partitions_in_task));
  rendezvous->StartAbort(why);
  rendezvous_->Release(f.step.step_id);
  Ended(f.step.step_id, why);
  f.reply(Finish(*reg_, device_->name(), f.step.step_id, why, nullptr, nullptr));
}

void Partition::Ended(int64_t step_id, const Status& status) {
  std::unique_lock<std::mutex> lock(mu_);
  auto step = steps_.find(step_id);
  if (step != steps_.end()) step->second = status;
  auto it = waiting_.find(step_id);
  if (it == waiting_.end()) return;
  auto f = std::make_shared<Follower>(std::move(it->second));
  waiting_.erase(it);
  lock.unlock();
  Unnested([self = shared_from_this(), f, status] {
    if (status.ok()) {
      self->Start(f->step, std::move(f->reply));
    } else {
      self->Fail(std::move(*f), status);
    }
  });
}

void Partition::Start(WireRunStep& step, Reply reply) {
  std::shared_ptr<Rendezvous> rendezvous =
      rendezvous_->Find(step.step_id, static_cast<int>(reg_->partitions_in_task));
  Status s = CheckFeeds(*reg_, step);
  for (auto& [name, t] : step.feeds) {
    if (s.ok()) s = rendezvous->Send(FeedKey(device_->name(), name), t);
  }
  if (!s.ok()) {
    // The step's other partitions here must not wait for this one.
    rendezvous->StartAbort(s);
    rendezvous_->Release(step.step_id);
    Ended(step.step_id, s);
    reply(Finish(*reg_, device_->name(), step.step_id, s, nullptr, nullptr));
    return;
  }
  auto stats = step.collect_stats ? std::make_shared<StepStats>() : nullptr;
  Executor::Args args;
  args.step_id = step.step_id;
  args.rendezvous = rendezvous.get();
  args.stats = stats.get();
  args.default_container = &reg_->container;
  // This thread (a CAF thread or a link's reader) starts the step but runs
  // only its cheap kernels; every expensive one goes to the device's
  // threads. (Handing the whole step to the device instead costs a thread
  // wake-up, ~20 us here, on every Run.)
  args.caller_may_compute = false;
  // The callback holds what the step points into until it is over.
  executor_->RunAsync(args, [reply = std::move(reply), rendezvous, stats, step_id = step.step_id,
                             executor = executor_, self = shared_from_this()](const Status& status) {
    WireStepDone done =
        Finish(*self->reg_, self->device_->name(), step_id, status, rendezvous.get(), stats.get());
    self->rendezvous_->Release(step_id);
    // The follower first: its tensors leave before this StepDone does.
    self->Ended(step_id, done.status);
    reply(std::move(done));
  });
}

void Partition::Abort(const WireAbortStep& abort) {
  rendezvous_->Abort(abort.step_id, abort.status);
  AbortWaiting(abort);
}

void Partition::AbortWaiting(const WireAbortStep& abort) {
  std::unique_lock<std::mutex> lock(mu_);
  for (auto it = waiting_.begin(); it != waiting_.end(); ++it) {
    if (it->second.step.step_id != abort.step_id) continue;
    Follower f = std::move(it->second);
    waiting_.erase(it);
    lock.unlock();
    End(std::move(f), abort.status);
    return;
  }
}

void Partition::AbortUnended(const Status& why) {
  std::vector<int64_t> unended;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [step_id, status] : steps_) {
      if (!status.has_value()) unended.push_back(step_id);
    }
  }
  for (int64_t step_id : unended) Abort(WireAbortStep{step_id, why});
}

Status FollowerAborted(int64_t followed, int64_t step, const Status& why) {
  return errors::Aborted("step ", followed, ", which step ", step, " follows, failed: ", why.ToString());
}

WireStepDone NoSuchPartition(const WireRunStep& step, const std::string& where) {
  WireStepDone done;
  done.step_id = step.step_id;
  done.handle = step.handle;
  done.status = errors::NotFound(where, " has no partition '", step.handle, "'");
  return done;
}

}  // namespace tact

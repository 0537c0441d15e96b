#include "actors/partition.h"

#include <algorithm>

#include "actors/rendezvous_mgr.h"
#include "devices/device.h"
#include "graph/subgraph.h"
#include "kernels/rendezvous.h"

namespace tact {
namespace {

// How many step ids a partition remembers, to run a step delivered twice
// once (a master that resends after a lost connection).
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
  std::lock_guard<std::mutex> lock(mu_);
  if (!steps_seen_.insert(step_id).second) return false;
  steps_seen_order_.push_back(step_id);
  if (steps_seen_order_.size() > kRememberedSteps) {
    steps_seen_.erase(steps_seen_order_.front());
    steps_seen_order_.pop_front();
  }
  return true;
}

void Partition::Run(WireRunStep& step, Reply reply) {
  if (!FirstDelivery(step.step_id)) return;
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
                             executor = executor_, reg = reg_, mgr = rendezvous_,
                             device = device_](const Status& status) {
    WireStepDone done = Finish(*reg, device->name(), step_id, status, rendezvous.get(), stats.get());
    mgr->Release(step_id);
    reply(std::move(done));
  });
}

void Partition::Abort(const WireAbortStep& abort) { rendezvous_->Abort(abort.step_id, abort.status); }

WireStepDone NoSuchPartition(const WireRunStep& step, const std::string& where) {
  WireStepDone done;
  done.step_id = step.step_id;
  done.handle = step.handle;
  done.status = errors::NotFound(where, " has no partition '", step.handle, "'");
  return done;
}

}  // namespace tact

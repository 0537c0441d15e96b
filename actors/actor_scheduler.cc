#include "actors/actor_scheduler.h"

#include <caf/actor_system_config.hpp>
#include <caf/atom.hpp>
#include <caf/policy/work_sharing.hpp>
#include <caf/scheduler/coordinator.hpp>
#include <thread>

namespace tact {
namespace {

// CAF's work sharing, but dequeue polls for kSchedulerPoll before waiting
// on the condition variable. Enqueue is unchanged: its notify costs nothing
// while the thread polls (no waiter).
class PollingSharing : public caf::policy::work_sharing {
 public:
  template <class Worker>
  caf::resumable* dequeue(Worker* self) {
    auto& data = d(self->parent());
    const auto deadline = std::chrono::steady_clock::now() + kSchedulerPoll;
    do {
      {
        std::lock_guard<std::mutex> guard(data.lock);
        if (!data.queue.empty()) {
          caf::resumable* job = data.queue.front();
          data.queue.pop_front();
          return job;
        }
      }
      std::this_thread::yield();
    } while (std::chrono::steady_clock::now() < deadline);
    return work_sharing::dequeue(self);
  }
};

}  // namespace

void UseActorScheduler(caf::actor_system_config& cfg) {
  cfg.set("scheduler.max-threads", 1);
  cfg.load<caf::scheduler::coordinator<PollingSharing>>();
}

}  // namespace tact

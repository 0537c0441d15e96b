#include "actors/inline_unit.h"

#include <caf/all.hpp>
#include <atomic>
#include <chrono>
#include <deque>
#include <mutex>
#include <set>
#include <thread>

#include "actors/caf_thread_scope.h"

namespace tact {
namespace {

// Messages an actor handles per resume before the next queued actor of
// this thread gets its turn (CAF's own default is 300).
constexpr size_t kThroughput = 64;

class InlineUnit;

// Every thread's unit, for AwaitActorsDone. Never destroyed: threads end
// after static destructors have run.
struct Units {
  std::mutex mu;
  std::set<const InlineUnit*> all;
};
Units& AllUnits() {
  static Units* units = new Units;
  return *units;
}

// The calling thread as a CAF execution unit: the actors it is handed run
// here, one after another, until none is left.
class InlineUnit final : public caf::execution_unit {
 public:
  InlineUnit() {
    std::lock_guard<std::mutex> lock(AllUnits().mu);
    AllUnits().all.insert(this);
  }
  ~InlineUnit() override {
    std::lock_guard<std::mutex> lock(AllUnits().mu);
    AllUnits().all.erase(this);
  }

  void exec_later(caf::resumable* job) override { jobs_.push_back(job); }

  // The system of the actor this thread runs now; null between actors.
  const caf::actor_system* running() const { return running_.load(std::memory_order_acquire); }

  bool draining() const { return draining_; }
  int holds = 0;  // InlineHolds alive on this thread

  void Drain() {
    const CafThreadScope scope;  // an actor run here may spawn (a device actor its partitions)
    draining_ = true;
    while (!jobs_.empty()) {
      caf::resumable* job = jobs_.front();
      jobs_.pop_front();
      Run(job);
    }
    draining_ = false;
  }

 private:
  void Run(caf::resumable* job) {
    // Only scheduled actors come here (their enqueue passes itself); CAF
    // reads the system off the unit while it runs one.
    system_ = &static_cast<caf::scheduled_actor*>(job)->home_system();
    running_.store(system_, std::memory_order_release);
    switch (job->resume(this, kThroughput)) {
      case caf::resumable::resume_later:
        jobs_.push_back(job);  // keeps the reference enqueue took
        break;
      case caf::resumable::done:
      case caf::resumable::awaiting_message:
      case caf::resumable::shutdown_execution_unit:
        caf::intrusive_ptr_release(job);
        break;
    }
    running_.store(nullptr, std::memory_order_release);
  }

  std::deque<caf::resumable*> jobs_;
  bool draining_ = false;
  std::atomic<const caf::actor_system*> running_{nullptr};
};

thread_local InlineUnit this_thread_unit;

}  // namespace

void inline_unit_internal::Tell(const caf::actor& dest, caf::mailbox_element_ptr element) {
  InlineUnit& unit = this_thread_unit;
  caf::actor_cast<caf::abstract_actor*>(dest)->enqueue(std::move(element), &unit);
  if (!unit.draining() && unit.holds == 0) unit.Drain();
}

void AwaitActorsDone(const caf::actor_system& system) {
  system.await_all_actors_done();
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(AllUnits().mu);
      bool busy = false;
      for (const InlineUnit* u : AllUnits().all) busy = busy || u->running() == &system;
      if (!busy) return;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

InlineHold::InlineHold() { ++this_thread_unit.holds; }

InlineHold::~InlineHold() {
  InlineUnit& unit = this_thread_unit;
  if (--unit.holds == 0 && !unit.draining()) unit.Drain();
}

}  // namespace tact

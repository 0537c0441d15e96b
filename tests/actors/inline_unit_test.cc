// Actors told through TellInline run on the telling thread: at once when
// idle, and after the current message when told (or sent to with CAF's
// own send) from inside another such actor.
#include "actors/inline_unit.h"

#include <gtest/gtest.h>

#include <caf/all.hpp>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "actors/actor_scheduler.h"
#include "actors/caf_thread_scope.h"
#include "tests/actors/thread_lives_on.h"

namespace tact {
namespace {

// What the actors did, in order, and on which threads.
struct Log {
  std::mutex mu;
  std::vector<std::string> events;
  std::vector<std::thread::id> threads;
  void Add(std::string e) {
    std::lock_guard<std::mutex> lock(mu);
    events.push_back(std::move(e));
    threads.push_back(std::this_thread::get_id());
  }
};

caf::behavior Recorder(caf::event_based_actor*, Log* log, std::string name) {
  return {[log, name](int x) { log->Add(name + ":" + std::to_string(x)); }};
}

// On `x`, tells `next` inline (or sends with CAF's send) and logs around it.
caf::behavior Forwarder(caf::event_based_actor* self, Log* log, caf::actor next, bool caf_send) {
  return {[=](int x) {
    log->Add("a:" + std::to_string(x));
    if (caf_send) {
      self->send(next, x + 1);
    } else {
      TellInline(next, x + 1);
    }
    log->Add("a done");
  }};
}

class InlineUnitTest : public ::testing::Test {
 protected:
  InlineUnitTest() {
    UseActorScheduler(cfg_);
    system_ = std::make_unique<caf::actor_system>(cfg_);
  }
  ~InlineUnitTest() override {
    for (const caf::actor& a : actors_) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    actors_.clear();
    system_.reset();
  }
  caf::actor Keep(caf::actor a) {
    actors_.push_back(a);
    return a;
  }

  caf::actor_system_config cfg_;
  std::unique_ptr<caf::actor_system> system_;
  std::vector<caf::actor> actors_;
  Log log_;
};

TEST_F(InlineUnitTest, AnIdleActorRunsOnTheTellingThreadBeforeTellReturns) {
  caf::actor b = Keep(system_->spawn<caf::lazy_init>(Recorder, &log_, std::string("b")));
  TellInline(b, 1);
  TellInline(b, 2);
  ASSERT_EQ(log_.events, (std::vector<std::string>{"b:1", "b:2"}));
  EXPECT_EQ(log_.threads[0], std::this_thread::get_id());
  EXPECT_EQ(log_.threads[1], std::this_thread::get_id());
}

// Under a hold the message only waits in the mailbox, so that what another
// thread sends meanwhile comes after it; the actor runs here when the hold
// ends (MasterLinks answers a client between the two).
TEST_F(InlineUnitTest, UnderAHoldAnActorRunsWhenTheHoldEndsWithWhatCameAfter) {
  caf::actor b = Keep(system_->spawn<caf::lazy_init>(Recorder, &log_, std::string("b")));
  {
    const InlineHold hold;
    TellInline(b, 1);
    EXPECT_TRUE(log_.events.empty());
    std::thread([b] { TellInline(b, 2); }).join();
    EXPECT_TRUE(log_.events.empty());
  }
  ASSERT_EQ(log_.events, (std::vector<std::string>{"b:1", "b:2"}));
  EXPECT_EQ(log_.threads[0], std::this_thread::get_id());
  EXPECT_EQ(log_.threads[1], std::this_thread::get_id());
}

// Both a TellInline and CAF's own send from inside an inline actor.
class NestedTellTest : public InlineUnitTest, public ::testing::WithParamInterface<bool> {};

TEST_P(NestedTellTest, ATellFromInsideAnInlineActorRunsAfterItsMessageOnTheSameThread) {
  caf::actor b = Keep(system_->spawn<caf::lazy_init>(Recorder, &log_, std::string("b")));
  caf::actor a = Keep(system_->spawn<caf::lazy_init>(Forwarder, &log_, b, GetParam()));
  TellInline(a, 1);
  ASSERT_EQ(log_.events, (std::vector<std::string>{"a:1", "a done", "b:2"}));
  EXPECT_EQ(log_.threads[2], std::this_thread::get_id());
}

INSTANTIATE_TEST_SUITE_P(TellAndCafSend, NestedTellTest, ::testing::Bool());

// CAF leaves a reference to the system's logger in each thread that spawns,
// and the system's destructor waits for it (actors/caf_thread_scope.h). An
// actor told inline from a thread of our own that spawns there must leave
// nothing behind: `tact train` hung at exit when a device's thread had run
// a master that placed a step again.
TEST(InlineUnitSpawnTest, AnActorThatSpawnsOnAThreadThatLivesOnLetsTheSystemEnd) {
  caf::actor_system_config cfg;
  UseActorScheduler(cfg);
  std::unique_ptr<caf::actor_system> system;
  std::promise<void> spawned;
  caf::actor spawner;
  {
    const CafThreadScope scope;  // as Session::Create: this thread keeps nothing either
    system = std::make_unique<caf::actor_system>(cfg);
    spawner = system->spawn([&](caf::event_based_actor* self) -> caf::behavior {
      return {[self, &spawned](int) {
        self->spawn([](caf::event_based_actor* child) { child->quit(); });
        spawned.set_value();
      }};
    });
  }
  test::ThreadThatLivesOn device_thread([&] { TellInline(spawner, 1); });
  spawned.get_future().wait();
  caf::anon_send_exit(spawner, caf::exit_reason::user_shutdown);
  spawner = nullptr;
  EXPECT_TRUE(device_thread.EndsWhileItLives([&] { system.reset(); }))
      << "the actor system waited for the thread that ran the spawning actor";
}

}  // namespace
}  // namespace tact

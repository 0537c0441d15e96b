// The policy a tensor link's reader runs under (actors/thread_policy.h),
// read back from the kernel.
#include "actors/thread_policy.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

namespace tact {
namespace {

struct Seen {
  bool changed = false;
  int policy = -1;
  int nice = -100;
};

// Runs `setup` then NeverPreemptOnWakeUp on a thread of its own (a
// thread's policy would outlive the test on the test's thread).
template <typename Setup>
Seen OnAThread(Setup setup) {
  Seen seen;
  std::thread t([&] {
    setup();
    seen.changed = NeverPreemptOnWakeUp();
    seen.policy = sched_getscheduler(0);
    errno = 0;
    seen.nice = getpriority(PRIO_PROCESS, static_cast<id_t>(gettid()));
  });
  t.join();
  return seen;
}

TEST(ThreadPolicyTest, AFairThreadBecomesBatchAndKeepsItsNice) {
  const Seen seen = OnAThread([] { ASSERT_EQ(setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 3), 0); });
  EXPECT_TRUE(seen.changed);
  EXPECT_EQ(seen.policy, SCHED_BATCH);
  EXPECT_EQ(seen.nice, 3);
}

TEST(ThreadPolicyTest, AnIdleThreadIsLeftAsItIs) {
  const Seen seen = OnAThread([] {
    sched_param p{};
    ASSERT_EQ(sched_setscheduler(0, SCHED_IDLE, &p), 0);
  });
  EXPECT_FALSE(seen.changed);
  EXPECT_EQ(seen.policy, SCHED_IDLE);
}

}  // namespace
}  // namespace tact

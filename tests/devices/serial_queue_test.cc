// SerialQueue: order, its own thread, pushes that never wait for the work,
// and a destructor that runs what is queued.
#include "devices/serial_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>
#include <vector>

namespace tact {
namespace {

TEST(SerialQueueTest, RunsInPushOrderOnItsOwnThread) {
  std::vector<int> ran;
  std::thread::id runner;
  {
    SerialQueue q("test");
    for (int i = 0; i < 1000; ++i) {
      q.Push([&ran, &runner, i] {
        ran.push_back(i);
        runner = std::this_thread::get_id();
      });
    }
  }  // the destructor runs what is still queued
  ASSERT_EQ(ran.size(), 1000u);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(ran[i], i);
  EXPECT_NE(runner, std::this_thread::get_id());
}

// While a closure blocks, pushes from another thread return at once, even
// thousands of them (a thread pool's Schedule would run them in place once
// its queue filled).
TEST(SerialQueueTest, PushNeverRunsOrWaitsForTheWork) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> ran{0};
  std::atomic<bool> inline_run{false};
  SerialQueue q("test");
  q.Push([released] { released.wait(); });
  std::thread pusher([&] {
    const std::thread::id me = std::this_thread::get_id();
    for (int i = 0; i < 5000; ++i) {
      q.Push([&, me] {
        if (std::this_thread::get_id() == me) inline_run = true;
        ++ran;
      });
    }
  });
  pusher.join();  // returns while the first closure still blocks
  EXPECT_EQ(ran.load(), 0);
  release.set_value();
  std::promise<void> drained;
  q.Push([&] { drained.set_value(); });
  drained.get_future().wait();
  EXPECT_EQ(ran.load(), 5000);
  EXPECT_FALSE(inline_run.load());
}

TEST(SerialQueueTest, EachPushersOrderHoldsAmongMany) {
  constexpr int kPushers = 4, kEach = 2000;
  std::vector<std::vector<int>> seen(kPushers);  // written by the queue's thread only
  {
    SerialQueue q("test");
    std::vector<std::thread> pushers;
    for (int p = 0; p < kPushers; ++p) {
      pushers.emplace_back([&q, &seen, p] {
        for (int i = 0; i < kEach; ++i) q.Push([&seen, p, i] { seen[p].push_back(i); });
      });
    }
    for (std::thread& t : pushers) t.join();
  }
  for (int p = 0; p < kPushers; ++p) {
    ASSERT_EQ(seen[p].size(), static_cast<size_t>(kEach)) << p;
    for (int i = 0; i < kEach; ++i) ASSERT_EQ(seen[p][i], i) << p;
  }
}

}  // namespace
}  // namespace tact

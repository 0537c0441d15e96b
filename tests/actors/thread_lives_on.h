// A thread that runs a first task and then stays alive until released, as
// a thread of a server's pool would: for the tests of what CAF leaves
// behind in threads that are not its own (actors/caf_thread_scope.h).
#pragma once

#include <chrono>
#include <functional>
#include <future>
#include <thread>

namespace tact::test {

class ThreadThatLivesOn {
 public:
  explicit ThreadThatLivesOn(std::function<void()> first)
      : thread_([this, first = std::move(first)] {
          first();
          release_.get_future().wait();
        }) {}
  ~ThreadThatLivesOn() { Release(); }
  ThreadThatLivesOn(const ThreadThatLivesOn&) = delete;
  ThreadThatLivesOn& operator=(const ThreadThatLivesOn&) = delete;

  // Whether `end`, run on another thread while this one lives on, returns
  // within 20 s. This thread is released afterwards and `end` waited for
  // either way, so that a failure cannot hang the test.
  bool EndsWhileItLives(const std::function<void()>& end) {
    std::future<void> ended = std::async(std::launch::async, end);
    const bool in_time = ended.wait_for(std::chrono::seconds(20)) == std::future_status::ready;
    Release();
    ended.wait();
    return in_time;
  }

 private:
  void Release() {
    if (!thread_.joinable()) return;
    release_.set_value();
    thread_.join();
  }

  std::promise<void> release_;
  std::thread thread_;  // declared last: it starts once release_ exists
};

}  // namespace tact::test

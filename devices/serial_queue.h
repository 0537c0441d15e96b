// SerialQueue: closures run one at a time, in the order pushed, on a
// thread of the queue's own. Push only enqueues: it never runs a closure
// on the pushing thread and never waits for one to run.
//
// For work handed over from a thread that must not do it itself: CUDA's
// host-function thread may not call CUDA, nor wait on a lock that a thread
// inside a CUDA call holds, and a thread pool's Schedule runs the task in
// place when its queue is full (Eigen's does).
//
//   SerialQueue q("gpu_0 completions");
//   q.Push([] { ... });  // from any thread
//
// Thread-safe. The destructor runs what is queued, then joins the thread;
// a closure must not destroy its own queue.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace tact {

class SerialQueue {
 public:
  // `name` is for debuggers (the thread's name, cut to 15 characters).
  explicit SerialQueue(const std::string& name);
  ~SerialQueue();
  SerialQueue(const SerialQueue&) = delete;
  SerialQueue& operator=(const SerialQueue&) = delete;

  void Push(std::function<void()> fn);

 private:
  void Loop();

  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace tact

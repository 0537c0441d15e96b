#include "devices/serial_queue.h"

#include <pthread.h>

#include <utility>

namespace tact {

SerialQueue::SerialQueue(const std::string& name) : thread_([this] { Loop(); }) {
  pthread_setname_np(thread_.native_handle(), name.substr(0, 15).c_str());
}

SerialQueue::~SerialQueue() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  ready_.notify_one();
  thread_.join();
}

void SerialQueue::Push(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(fn));
  }
  ready_.notify_one();
}

void SerialQueue::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and nothing left to run
    std::function<void()> fn = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    fn();
    fn = nullptr;  // what it holds goes here too, outside the lock
    lock.lock();
  }
}

}  // namespace tact

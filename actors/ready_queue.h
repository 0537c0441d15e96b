// ReadyQueue: the nodes of one step that one executor thread may run next.
//
// Order: lowest node id first, i.e. graph construction order. Paper 3.1
// leaves the order open; we take construction order because users build a
// layer's ops together, so finishing the earliest-built ready node tends to
// finish a chain and free its buffers before the next chain starts. That
// keeps peak memory close to what the program text suggests, and makes the
// order of side effects between unrelated stateful nodes predictable. A
// binary heap costs a few nanoseconds per node at the queue sizes seen
// (usually 1 to a few dozen).
#pragma once

#include <algorithm>
#include <functional>
#include <vector>

namespace tact {

class ReadyQueue {
 public:
  // A queue on a thread that must not compute (a CAF scheduler thread)
  // takes only cheap nodes; expensive ones go to the device's threads.
  explicit ReadyQueue(bool allows_expensive = true) : allows_expensive_(allows_expensive) {}
  bool allows_expensive() const { return allows_expensive_; }

  void Push(int node_id) {
    heap_.push_back(node_id);
    std::push_heap(heap_.begin(), heap_.end(), std::greater<int>());
  }
  // Requires !empty().
  int Pop() {
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<int>());
    int id = heap_.back();
    heap_.pop_back();
    return id;
  }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }

 private:
  bool allows_expensive_;
  std::vector<int> heap_;
};

}  // namespace tact

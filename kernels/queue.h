// A FIFO queue of tuples of tensors (paper 4.6: "queues allow different
// portions of the graph to execute asynchronously ... prefetch inputs ...
// accumulate gradients"), kept in a container like a Variable, so that the
// Runs of several sessions can feed and drain it.
//
// Nothing here blocks a thread (paper 5.3): an Enqueue into a full queue
// and a Dequeue from an empty one leave a callback that runs when room or
// an element comes, or when the wait is cancelled (the step aborted) or the
// queue closed.
//
//   auto q = std::make_shared<FIFOQueue>("q", {DT_FLOAT}, {}, /*capacity=*/10);
//   q->TryEnqueue({t}, [](const Status& s) { ... });
//   q->TryDequeue([](const Status& s, FIFOQueue::Tuple t) { ... });
//
// Thread-safe. Callbacks run on the thread that made their wait end, never
// under the queue's lock.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "graph/tensor.h"
#include "kernels/resource_mgr.h"

namespace tact {

class FIFOQueue : public ResourceBase {
 public:
  using Tuple = std::vector<Tensor>;
  using EnqueueDone = std::function<void(const Status&)>;
  using DequeueDone = std::function<void(const Status&, Tuple)>;
  using Token = uint64_t;  // a wait, to Cancel; 0 once it has ended

  // `shapes` empty: any shapes; else one per component. `capacity` < 0:
  // unbounded.
  FIFOQueue(std::string name, std::vector<DataType> types, std::vector<PartialTensorShape> shapes,
            int64_t capacity);
  std::string DebugString() const override { return "FIFOQueue '" + name_ + "'"; }

  const std::string& name() const { return name_; }
  const std::vector<DataType>& component_types() const { return types_; }

  // InvalidArgument, naming the queue and the component, unless `tuple` has
  // the queue's component count, dtypes and (when declared) shapes.
  Status Check(const Tuple& tuple) const;

  // Adds `tuple` at the back: `done` runs now if there is room, later when
  // room is made, or with Cancelled if the queue is (or gets) closed with
  // pending enqueues cancelled, or the wait is cancelled. Closed queues
  // refuse new elements (Cancelled).
  Token TryEnqueue(Tuple tuple, EnqueueDone done);
  // Takes the front tuple: `done` runs now if there is one, later when one
  // comes, with OutOfRange once the queue is closed and empty, or with the
  // status the wait is cancelled with.
  Token TryDequeue(DequeueDone done);
  // Ends the wait of `token` with `why`, if it still waits.
  void Cancel(Token token, const Status& why);

  // Later enqueues fail; dequeues drain what is left, then fail with
  // OutOfRange. Pending enqueues still complete as room is made, unless
  // `cancel_pending_enqueues`.
  void Close(bool cancel_pending_enqueues);

  int64_t Size() const;
  bool closed() const;

 private:
  struct PendingEnqueue {
    Tuple tuple;
    EnqueueDone done;
  };
  // Callbacks to run once the lock is let go.
  using Calls = std::vector<std::function<void()>>;

  // Moves pending enqueues in while there is room, and hands front tuples
  // to pending dequeues while there are some; what finished goes to `calls`.
  void Match(Calls* calls);  // with mu_ held
  bool Full() const { return capacity_ >= 0 && static_cast<int64_t>(items_.size()) >= capacity_; }
  Status ClosedAndEmpty() const;

  const std::string name_;
  const std::vector<DataType> types_;
  const std::vector<PartialTensorShape> shapes_;
  const int64_t capacity_;

  mutable std::mutex mu_;
  std::deque<Tuple> items_;
  // Waits in arrival order (tokens grow).
  std::map<Token, PendingEnqueue> enqueues_;
  std::map<Token, DequeueDone> dequeues_;
  Token next_token_ = 1;
  bool closed_ = false;
};

}  // namespace tact

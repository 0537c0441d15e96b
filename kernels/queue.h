// A queue of elements, each a tuple of tensors (paper 4.6: "queues allow
// different portions of the graph to execute asynchronously ... prefetch
// inputs ... accumulate gradients"), kept in a container like a Variable,
// so that the Runs of several sessions can feed and drain it. First in,
// first out; or, as TensorFlow's RandomShuffleQueue, a random element out,
// seeded, and only while more than `min_after_dequeue` stay behind (so
// that what comes out is well mixed) unless the queue is closed.
//
// Nothing here blocks a thread (paper 5.3): an enqueue into a full queue
// and a dequeue of more than it holds leave a callback that runs when room
// or elements come, or when the wait is cancelled (the step aborted) or
// the queue closed. Waits are served in the order they came.
//
//   QueueOptions o;
//   o.name = "q";
//   o.types = {DT_FLOAT};
//   o.capacity = 10;
//   auto q = std::make_shared<Queue>(o);
//   q->TryEnqueue({t}, [](const Status& s) { ... });
//   q->TryDequeueMany(4, /*allow_fewer=*/false, [](const Status& s, std::vector<Queue::Tuple> got) { ... });
//
// Thread-safe. Callbacks run on the thread that made their wait end, never
// under the queue's lock.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "graph/tensor.h"
#include "kernels/resource_mgr.h"

namespace tact {

struct QueueOptions {
  std::string name;
  std::vector<DataType> types;               // one per component
  std::vector<PartialTensorShape> shapes;    // empty: any; else one per component
  int64_t capacity = -1;                     // < 0: unbounded
  bool shuffle = false;                      // a RandomShuffleQueue
  // A PaddingFIFOQueue: `shapes` may leave dimensions unknown, and batched
  // dequeues pad each component with zeros to the batch's largest shape.
  bool padding = false;
  int64_t min_after_dequeue = 0;             // shuffle: elements a dequeue leaves behind
  uint64_t seed = 0;                         // shuffle: 0 draws one
};

class Queue : public ResourceBase {
 public:
  using Tuple = std::vector<Tensor>;
  using EnqueueDone = std::function<void(const Status&)>;
  using DequeueDone = std::function<void(const Status&, Tuple)>;
  using DequeueManyDone = std::function<void(const Status&, std::vector<Tuple>)>;
  using Token = uint64_t;  // a wait, to Cancel; 0 once it has ended

  explicit Queue(QueueOptions options);
  std::string DebugString() const override;

  const QueueOptions& options() const { return options_; }

  // InvalidArgument, naming the queue and the component, unless `tuple` has
  // the queue's component count, dtypes and (when declared) shapes.
  Status Check(const Tuple& tuple) const;

  // Adds the elements at the back, one by one as room is made: `done` runs
  // once all are in, or with Cancelled if the queue is (or gets) closed
  // with pending enqueues cancelled (those already in stay), or the wait is
  // cancelled. Closed queues refuse new elements (Cancelled).
  Token TryEnqueueMany(std::vector<Tuple> elements, EnqueueDone done);
  Token TryEnqueue(Tuple tuple, EnqueueDone done);
  // Takes `n` elements at once (>= 1): `done` runs when there are that many
  // (beyond min_after_dequeue, for a shuffling queue that is not closed).
  // Once the queue is closed and holds fewer, with `allow_fewer` (TensorFlow's
  // DequeueUpTo) it takes what is left; otherwise, and when nothing is
  // left, it fails with OutOfRange.
  Token TryDequeueMany(int64_t n, bool allow_fewer, DequeueManyDone done);
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
    std::vector<Tuple> elements;
    size_t next = 0;  // the first not yet in
    EnqueueDone done;
  };
  struct PendingDequeue {
    int64_t n = 1;
    bool allow_fewer = false;
    DequeueManyDone done;
  };
  // Callbacks to run once the lock is let go.
  using Calls = std::vector<std::function<void()>>;

  // Moves pending enqueues in while there is room, and serves pending
  // dequeues while there are enough elements; what finished goes to
  // `calls`. With mu_ held.
  void Match(Calls* calls);
  bool Full() const;
  Tuple Take();  // the next element out: the front, or a random one
  std::vector<Tuple> TakeMany(int64_t n);

  const QueueOptions options_;
  mutable std::mutex mu_;
  std::deque<Tuple> items_;
  // Waits in arrival order (tokens grow).
  std::map<Token, PendingEnqueue> enqueues_;
  std::map<Token, PendingDequeue> dequeues_;
  Token next_token_ = 1;
  bool closed_ = false;
  std::mt19937_64 random_;
};

}  // namespace tact

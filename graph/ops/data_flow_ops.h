// Builder functions for queues (paper 4.6): a FIFOQueue (or
// PaddingFIFOQueue, or RandomShuffleQueue) node yields a reference to a
// queue that lives in a container across Runs (like a Variable, and shared
// the same way: by container and shared_name), and QueueEnqueue(Many),
// QueueDequeue(Many, UpTo), QueueClose and QueueSize use it. An enqueue
// into a full queue and a dequeue of more than it holds wait without
// holding a thread, until room or elements come, the queue is closed, or
// the step is aborted (its operation timeout, or Session::Close).
//
//   Scope s = Scope::NewRootScope();
//   Output q = FIFOQueue(s.WithOpName("q"), {DT_FLOAT, DT_INT32}, {}, /*capacity=*/100);
//   Node* enqueue = QueueEnqueue(s, q, {images, labels});
//   std::vector<Output> batch = QueueDequeue(s, q, {DT_FLOAT, DT_INT32});
#pragma once

#include <vector>

#include "graph/op_builder.h"

namespace tact {

// `shapes` empty: components of any shape; else one per component, checked
// on every enqueue. `capacity` < 0: unbounded.
Output FIFOQueue(const Scope& scope, const std::vector<DataType>& component_types,
                 const std::vector<PartialTensorShape>& shapes = {}, int64_t capacity = -1,
                 const std::string& container = "", const std::string& shared_name = "");
// A FIFOQueue whose `shapes` (one per component, required) may leave
// dimensions unknown (-1): batched dequeues pad each component with zeros
// to the largest shape in the batch, for elements of different lengths.
Output PaddingFIFOQueue(const Scope& scope, const std::vector<DataType>& component_types,
                        const std::vector<PartialTensorShape>& shapes, int64_t capacity = -1,
                        const std::string& container = "", const std::string& shared_name = "");

// Dequeues take a random element, seeded (0: a seed is drawn), and only
// while more than `min_after_dequeue` stay behind, unless the queue is
// closed: what comes out is well mixed.
Output RandomShuffleQueue(const Scope& scope, const std::vector<DataType>& component_types,
                          int64_t min_after_dequeue = 0, int64_t seed = 0,
                          const std::vector<PartialTensorShape>& shapes = {}, int64_t capacity = -1,
                          const std::string& container = "", const std::string& shared_name = "");

// One element: one tensor per component.
Node* QueueEnqueue(const Scope& scope, Input queue, const std::vector<Output>& components);
// As many elements as the components' first dimension (the same for all).
Node* QueueEnqueueMany(const Scope& scope, Input queue, const std::vector<Output>& components);
std::vector<Output> QueueDequeue(const Scope& scope, Input queue,
                                 const std::vector<DataType>& component_types);
// `n` elements (an int32 scalar), each component stacked along a new first
// dimension (the elements must have one shape). `up_to`: once the queue is
// closed, what is left if fewer (TensorFlow's DequeueUpTo).
std::vector<Output> QueueDequeueMany(const Scope& scope, Input queue, Input n,
                                     const std::vector<DataType>& component_types, bool up_to = false);
Node* QueueClose(const Scope& scope, Input queue, bool cancel_pending_enqueues = false);
Output QueueSize(const Scope& scope, Input queue);

}  // namespace tact

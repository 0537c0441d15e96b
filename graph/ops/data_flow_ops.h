// Builder functions for queues (paper 4.6): a FIFOQueue node yields a
// reference to a queue that lives in a container across Runs (like a
// Variable, and shared the same way: by container and shared_name), and
// QueueEnqueue, QueueDequeue, QueueClose and QueueSize use it. An Enqueue
// into a full queue and a Dequeue from an empty one wait without holding a
// thread, until room or an element comes, the queue is closed, or the step
// is aborted (its operation timeout, or Session::Close).
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
Node* QueueEnqueue(const Scope& scope, Input queue, const std::vector<Output>& components);
std::vector<Output> QueueDequeue(const Scope& scope, Input queue,
                                 const std::vector<DataType>& component_types);
Node* QueueClose(const Scope& scope, Input queue, bool cancel_pending_enqueues = false);
Output QueueSize(const Scope& scope, Input queue);

}  // namespace tact

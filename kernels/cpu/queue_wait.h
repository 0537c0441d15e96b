// How an async kernel waits on a queue (kernels/queue.h) so that its step's
// abort ends the wait: queue ops, and readers taking their next file.
#pragma once

#include <functional>
#include <memory>

#include "kernels/op_kernel.h"
#include "kernels/queue.h"

namespace tact {

// Starts a wait on `queue` with `start` (TryEnqueue or TryDequeue, given
// the callback that ends it) and ends it with the step's abort status if
// the step is aborted first. `finish` runs once, when the wait ends.
void WaitOnQueue(OpKernelContext* ctx, const std::shared_ptr<Queue>& queue,
                 const std::function<Queue::Token(std::function<void()> ended)>& start,
                 std::function<void()> finish);

}  // namespace tact

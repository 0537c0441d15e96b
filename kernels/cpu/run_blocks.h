// Work shared between a kernel's calling thread and its device's pool
// threads, block by block (ParallelGemm's blocks; ParallelFor stays on
// Eigen's parallelFor, which trained the mlp as fast or faster).
//
//   RunBlocks(ctx, blocks, Seats::kEveryThread, [&](int64_t i) { ... block i ... });
//
// Every thread takes blocks from one counter, the caller first, so a pool
// thread that wakes late finds fewer blocks left instead of the others
// waiting for it, and one that finds none returns at once. Once out of
// blocks the caller spins a little for the pool threads' last ones before
// it sleeps: waking it cost 20-50 µs a call on a 2-vCPU VM
// (docs/performance.md, session 17).
#pragma once

#include <cstdint>
#include <functional>

#include "kernels/op_kernel.h"

namespace tact {

// Who may compute a RunBlocks' blocks at once.
enum class Seats {
  kEveryThread,    // the caller and every pool thread
  kDeviceThreads,  // no more threads than the device has, the caller included
};

// Runs fn(0), ..., fn(blocks - 1), each exactly once, on this thread and
// on the device's pool threads, and returns when all are done. A device of
// one thread, or a single block, computes on the caller only.
void RunBlocks(OpKernelContext* ctx, int64_t blocks, Seats seats,
               const std::function<void(int64_t block)>& fn);

}  // namespace tact

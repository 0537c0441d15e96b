#define EIGEN_USE_THREADS
#include "kernels/cpu/run_blocks.h"

#include <sched.h>

#include <unsupported/Eigen/CXX11/Tensor>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "devices/leave_cpu.h"

namespace tact {
namespace {

using Clock = std::chrono::steady_clock;

// The caller, once out of blocks, spins at most this long for the pool
// threads' last blocks before it sleeps, and never longer than its own
// last block took, so that a spin costs at most about what the call did.
// Sleeping made every call pay a wake-up at its end: a MatMul at n = 256
// lasts 120-200 µs, and ran at a median of 157-171 GFLOP/s asleep against
// 237-256 spinning.
constexpr auto kMaxCallerSpin = std::chrono::microseconds(100);

// This thread's CPU as one bit of 64 (0 where the system cannot say).
uint64_t CpuBit() {
  const int cpu = sched_getcpu();
  return cpu < 0 ? 0 : uint64_t{1} << (cpu % 64);
}

// A pause in a spin loop: it yields the core's pipeline to its other
// hardware thread.
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

}  // namespace

void RunBlocks(OpKernelContext* ctx, int64_t blocks, Seats seats,
               const std::function<void(int64_t block)>& fn) {
  Eigen::ThreadPoolDevice* d = ctx->eigen_cpu_device();
  const int threads = d == nullptr ? 1 : d->numThreads();
  // Every pool thread is asked, not threads - 1: on a 2-vCPU VM the one
  // thread woken often ran on the caller's core for a whole run, and the
  // work went at one core's speed.
  const int64_t helpers = threads <= 1 ? 0 : std::min<int64_t>(threads, blocks - 1);
  if (helpers <= 0) {
    for (int64_t i = 0; i < blocks; ++i) fn(i);
    return;
  }
  struct Shared {
    std::atomic<int64_t> next{0};
    std::atomic<int64_t> left{0};
    std::atomic<int> seats{0};  // threads that may still join
    // The CPUs (modulo 64) the pool threads took blocks on: a caller that
    // spun on the CPU of a pool thread it waits for would only keep that
    // thread off its CPU.
    std::atomic<uint64_t> helper_cpus{0};
    const int caller_cpu = sched_getcpu();
    std::mutex mu;
    std::condition_variable all_done;
  };
  auto shared = std::make_shared<Shared>();
  shared->left.store(blocks, std::memory_order_relaxed);
  shared->seats.store(seats == Seats::kEveryThread ? threads + 1 : threads, std::memory_order_relaxed);
  // A pool thread that starts after the last block was taken touches only
  // `shared`, which it holds: never `fn`, which dies with this call.
  // The caller's call returns how long its last block took (the pool
  // threads' time nothing: no one reads it).
  auto take = [shared, blocks, &fn](bool helper) {
    Clock::duration last{0};
    if (shared->seats.fetch_sub(1, std::memory_order_relaxed) <= 0) return last;
    // Woken onto the caller's CPU, it would only take turns with the
    // caller there (devices/leave_cpu.h).
    if (helper && shared->next.load(std::memory_order_relaxed) < blocks &&
        sched_getcpu() == shared->caller_cpu) {
      LeaveCpu(shared->caller_cpu);
    }
    for (int64_t i; (i = shared->next.fetch_add(1, std::memory_order_relaxed)) < blocks;) {
      if (helper) {
        shared->helper_cpus.fetch_or(CpuBit(), std::memory_order_relaxed);
        fn(i);
      } else {
        const Clock::time_point start = Clock::now();
        fn(i);
        last = Clock::now() - start;
      }
      if (shared->left.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(shared->mu);
        shared->all_done.notify_one();
      }
    }
    return last;
  };
  for (int64_t h = 0; h < helpers; ++h) d->getPool()->Schedule([take] { take(true); });
  const Clock::duration own_block = take(false);
  if ((shared->helper_cpus.load(std::memory_order_relaxed) & CpuBit()) == 0) {
    const Clock::time_point until = Clock::now() + std::min<Clock::duration>(own_block, kMaxCallerSpin);
    while (shared->left.load(std::memory_order_acquire) != 0 && Clock::now() < until) CpuRelax();
  }
  std::unique_lock<std::mutex> lock(shared->mu);
  shared->all_done.wait(lock, [&] { return shared->left.load(std::memory_order_acquire) == 0; });
}

}  // namespace tact

#define EIGEN_USE_THREADS
#include "kernels/cpu/parallel_gemm.h"

#include <unsupported/Eigen/CXX11/Tensor>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>

#include "kernels/cpu/blas_gemm.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/numeric_types.h"

namespace tact {
namespace {

// Up to this many blocks: enough for dynamic balance on a few threads
// (another process on the same cores stalls one of them now and then).
// Each block packs the whole of the other operand again, which cost 8
// blocks 6-15% against a direct sgemm at n=1024-2048 on 2 threads (B^T
// most); 4 blocks cut that to 0-6%. The bits do not depend on the block
// count (the mlp and cnn trained to the same fingerprints with 8 and 4).
constexpr int64_t kMaxBlocks = 4;
// Below this many multiply-adds per block, BLAS's packing and the hand-off
// cost more than a second thread gains.
constexpr int64_t kMinBlockMacs = int64_t{1} << 21;
// Rows (columns) per block: a multiple of the micro-kernel's tile, so no
// block boundary cuts a tile; blocks no thinner than this.
constexpr int64_t kAlign = 16;
constexpr int64_t kMinBlock = 32;

// The block size along a dimension of `len` for a product of `macs`.
int64_t BlockSize(int64_t len, int64_t macs) {
  const int64_t by_work = std::max<int64_t>(macs / kMinBlockMacs, 1);
  const int64_t blocks = std::min(kMaxBlocks, by_work);
  int64_t size = (len + blocks - 1) / blocks;
  size = (size + kAlign - 1) / kAlign * kAlign;
  return std::min(len, std::max(size, kMinBlock));
}

// From this many multiply-adds on, a product's blocks run on at most as
// many threads as the device has: one more thread on the same cores cost
// 4-8% at n = 2048 (its blocks' packed panels evict each other), and a
// block lasts long enough (milliseconds) for the kernel to move a thread
// that shares a core with another to an idle one.
constexpr int64_t kSeatedMacs = int64_t{1} << 32;

// Runs fn(0), ..., fn(blocks - 1), each once, on this thread and on the
// device's pool threads, all taking blocks from a shared counter, so a
// helper that wakes late finds fewer blocks left instead of the others
// waiting for it. Every pool thread is asked, not threads - 1: on a 2-vCPU
// VM the one thread woken often ran on the caller's core for a whole run,
// and the product at one core's speed. A helper that finds no block left,
// or no seat of `seats`, returns at once. A device of one thread computes
// on the caller only.
//
// Eigen's parallelFor, used before, handed the blocks to the pool and woke
// its threads one after the other, the caller waiting idle: MatMul at
// n = 256-512 ran at one core's speed in many runs (docs/performance.md).
void RunBlocks(OpKernelContext* ctx, int64_t blocks, int64_t macs, const std::function<void(int64_t)>& fn) {
  Eigen::ThreadPoolDevice* d = ctx->eigen_cpu_device();
  const int threads = d == nullptr ? 1 : d->numThreads();
  const int64_t helpers = threads <= 1 ? 0 : std::min<int64_t>(threads, blocks - 1);
  if (helpers <= 0) {
    for (int64_t i = 0; i < blocks; ++i) fn(i);
    return;
  }
  struct Shared {
    std::atomic<int64_t> next{0};
    std::atomic<int64_t> left{0};
    std::atomic<int> seats{0};  // threads that may still join
    std::mutex mu;
    std::condition_variable all_done;
  };
  auto shared = std::make_shared<Shared>();
  shared->left.store(blocks, std::memory_order_relaxed);
  shared->seats.store(macs >= kSeatedMacs ? threads : threads + 1, std::memory_order_relaxed);
  // A helper that starts after the last block was taken touches only
  // `shared`, which it holds: never `fn`, which dies with this call.
  auto take = [shared, blocks, &fn] {
    if (shared->seats.fetch_sub(1, std::memory_order_relaxed) <= 0) return;
    for (int64_t i; (i = shared->next.fetch_add(1, std::memory_order_relaxed)) < blocks;) {
      fn(i);
      if (shared->left.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(shared->mu);
        shared->all_done.notify_one();
      }
    }
  };
  for (int64_t h = 0; h < helpers; ++h) d->getPool()->Schedule(take);
  take();
  std::unique_lock<std::mutex> lock(shared->mu);
  shared->all_done.wait(lock, [&] { return shared->left.load(std::memory_order_acquire) == 0; });
}

}  // namespace

template <typename T>
void ParallelGemm(OpKernelContext* ctx, bool trans_a, bool trans_b, int64_t m, int64_t n,
                  int64_t k, T alpha, const T* a, const T* b, T beta, T* c, bool conjugate) {
  if (m == 0 || n == 0) return;
  const int64_t lda = trans_a ? m : k;
  const int64_t ldb = trans_b ? k : n;
  const int64_t macs = m * n * k;
  if (m >= n) {
    const int64_t bm = BlockSize(m, macs);
    const int64_t blocks = (m + bm - 1) / bm;
    RunBlocks(ctx, blocks, macs, [&](int64_t i) {
      const int64_t r0 = i * bm, rows = std::min(bm, m - r0);
      // Rows r0.. of op(A): row r0 of A, or column r0 of the stored A^T.
      const T* ab = trans_a ? a + r0 : a + r0 * lda;
      GemmStrided<T>(trans_a, trans_b, rows, n, k, alpha, ab, lda, b, ldb, beta, c + r0 * n, n,
                     conjugate);
    });
  } else {
    const int64_t bn = BlockSize(n, macs);
    const int64_t blocks = (n + bn - 1) / bn;
    RunBlocks(ctx, blocks, macs, [&](int64_t j) {
      const int64_t c0 = j * bn, cols = std::min(bn, n - c0);
      // Columns c0.. of op(B): columns of B, or rows of the stored B^T.
      const T* bb = trans_b ? b + c0 * ldb : b + c0;
      GemmStrided<T>(trans_a, trans_b, m, cols, k, alpha, a, lda, bb, ldb, beta, c + c0, n,
                     conjugate);
    });
  }
}

#define TACT_INSTANTIATE_PARALLEL_GEMM(T, ...)                                             \
  template void ParallelGemm<T>(OpKernelContext*, bool, bool, int64_t, int64_t, int64_t, T, \
                                const T*, const T*, T, T*, bool);
TACT_CALL_FLOAT(TACT_INSTANTIATE_PARALLEL_GEMM)
TACT_CALL_COMPLEX(TACT_INSTANTIATE_PARALLEL_GEMM)
TACT_CALL_INT(TACT_INSTANTIATE_PARALLEL_GEMM)
#undef TACT_INSTANTIATE_PARALLEL_GEMM

}  // namespace tact

#include "kernels/cpu/parallel_gemm.h"

#include <algorithm>

#include "devices/device.h"
#include "kernels/cpu/blas_gemm.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/numeric_types.h"
#include "kernels/cpu/run_blocks.h"

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

// From this many multiply-adds on (n = 1024 cubed), a product's blocks run
// on at most as many threads as the device has: one more thread on the
// same cores cost 4-8% at n = 2048 (its blocks' packed panels evict each
// other), and a block lasts long enough (7 ms and more on two threads) for
// the kernel to move a thread that shares a core with another to an idle
// one. From 2^32 (session 19) down to 2^30 in session 24: at n = 1024 the
// four blocks ran at medians of 0.92-0.95 of a direct sgemm (0.60-0.92 in
// the worst of 10 runs), the two at 0.96-0.99 (0.65-0.98), transposed or
// not; beside a busy loop 0.95 against 0.94-1.02. No product of the mlp or
// the cnn at batch 100 is this large.
constexpr int64_t kSeatedMacs = int64_t{1} << 30;

Seats SeatsFor(int64_t macs) { return macs >= kSeatedMacs ? Seats::kDeviceThreads : Seats::kEveryThread; }

// The block size along a dimension of `len` for a product of `macs`,
// whatever the thread count.
int64_t BlockSize(int64_t len, int64_t macs) {
  const int64_t blocks = std::min(kMaxBlocks, std::max<int64_t>(macs / kMinBlockMacs, 1));
  int64_t size = (len + blocks - 1) / blocks;
  size = (size + kAlign - 1) / kAlign * kAlign;
  return std::min(len, std::max(size, kMinBlock));
}

// A seated product takes one block of rows per thread: each block packs the
// whole other operand again, and at n = 2048 on two threads four blocks ran
// at 0.88-0.90 of a direct sgemm where two ran at 0.95-0.97 (session 19);
// its blocks are long enough that balance comes from the kernel's
// scheduler, not from spare blocks.
//
// Those blocks depend on the thread count, so where they start must not
// change an element's bits. OpenBLAS's AVX2 sgemm (its Haswell kernels,
// which Zen runs too, and which OPENBLAS_CORETYPE=Haswell picks here)
// computes a row of C otherwise when a block's rows are not a multiple of
// 48, and any element otherwise when the columns are split at all; its
// AVX-512 sgemm and every dgemm, cgemm and zgemm keep their bits for any
// split (measured with direct cblas calls). So seated blocks are rows in
// multiples of kSeatedRows, at least eight of them per block, so that the
// longest block is at most 1/8 longer than an even share (at m = 1024 on
// two threads, 528 and 496 rows); a product with fewer rows than two such
// blocks takes the partition above on every thread count, which depends on
// m, n and k only. (A wide layer, a batch of 128 and a vocabulary of
// 50,000, would otherwise have run its rows as 96 and 32: 3/4 of one
// thread's time, where its four blocks of columns take about half.)
constexpr int64_t kSeatedRows = 48;
constexpr int64_t kSeatedBlockRows = 8 * kSeatedRows;

// Rows per block of a seated product on `threads`, or 0 if it has too few
// rows to be seated by rows.
int64_t SeatedBlockRows(int64_t m, int threads) {
  if (m < 2 * kSeatedBlockRows) return 0;
  const int64_t blocks = std::clamp<int64_t>(threads, 1, m / kSeatedBlockRows);
  const int64_t size = ((m + blocks - 1) / blocks + kSeatedRows - 1) / kSeatedRows * kSeatedRows;
  return std::min(m, size);
}

}  // namespace

template <typename T>
void ParallelGemm(OpKernelContext* ctx, bool trans_a, bool trans_b, int64_t m, int64_t n,
                  int64_t k, T alpha, const T* a, const T* b, T beta, T* c, bool conjugate) {
  if (m == 0 || n == 0) return;
  const int64_t lda = trans_a ? m : k;
  const int64_t ldb = trans_b ? k : n;
  const int64_t macs = m * n * k;
  const int64_t seated_rows = macs >= kSeatedMacs ? SeatedBlockRows(m, ctx->device()->num_threads()) : 0;
  if (seated_rows > 0 || m >= n) {
    const int64_t bm = seated_rows > 0 ? seated_rows : BlockSize(m, macs);
    const int64_t blocks = (m + bm - 1) / bm;
    RunBlocks(ctx, blocks, SeatsFor(macs), [&](int64_t i) {
      const int64_t r0 = i * bm, rows = std::min(bm, m - r0);
      // Rows r0.. of op(A): row r0 of A, or column r0 of the stored A^T.
      const T* ab = trans_a ? a + r0 : a + r0 * lda;
      GemmStrided<T>(trans_a, trans_b, rows, n, k, alpha, ab, lda, b, ldb, beta, c + r0 * n, n,
                     conjugate);
    });
  } else {
    const int64_t bn = BlockSize(n, macs);
    const int64_t blocks = (n + bn - 1) / bn;
    RunBlocks(ctx, blocks, SeatsFor(macs), [&](int64_t j) {
      const int64_t c0 = j * bn, cols = std::min(bn, n - c0);
      // Columns c0.. of op(B): columns of B, or rows of the stored B^T.
      const T* bb = trans_b ? b + c0 * ldb : b + c0;
      GemmStrided<T>(trans_a, trans_b, m, cols, k, alpha, a, lda, bb, ldb, beta, c + c0, n,
                     conjugate);
    });
  }
}

// Up to this many multiply-adds a product of a batch is one single-threaded
// BLAS call, and the batch's products run side by side on the device's
// threads.
constexpr int64_t kSmallProduct = 1 << 17;

template <typename T>
void BatchedGemm(OpKernelContext* ctx, bool trans_a, bool trans_b, int64_t m, int64_t n,
                 int64_t k, const T* a, const std::vector<int64_t>& a_index, const T* b,
                 const std::vector<int64_t>& b_index, T* c, bool conjugate) {
  const int64_t batches = static_cast<int64_t>(a_index.size());
  if (m * n * k <= kSmallProduct) {
    ParallelFor(ctx, batches, std::max<int64_t>(m * n * k, 1) * 2, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        Gemm<T>(trans_a, trans_b, m, n, k, T(1), a + a_index[i] * m * k, b + b_index[i] * k * n,
                T(0), c + i * m * n, 0, conjugate);
      }
    });
    return;
  }
  for (int64_t i = 0; i < batches; ++i) {
    ParallelGemm<T>(ctx, trans_a, trans_b, m, n, k, T(1), a + a_index[i] * m * k,
                    b + b_index[i] * k * n, T(0), c + i * m * n, conjugate);
  }
}

#define TACT_INSTANTIATE_PARALLEL_GEMM(T, ...)                                                \
  template void ParallelGemm<T>(OpKernelContext*, bool, bool, int64_t, int64_t, int64_t, T,    \
                                const T*, const T*, T, T*, bool);                              \
  template void BatchedGemm<T>(OpKernelContext*, bool, bool, int64_t, int64_t, int64_t,        \
                               const T*, const std::vector<int64_t>&, const T*,                \
                               const std::vector<int64_t>&, T*, bool);
TACT_CALL_FLOAT(TACT_INSTANTIATE_PARALLEL_GEMM)
TACT_CALL_COMPLEX(TACT_INSTANTIATE_PARALLEL_GEMM)
TACT_CALL_INT(TACT_INSTANTIATE_PARALLEL_GEMM)
#undef TACT_INSTANTIATE_PARALLEL_GEMM

}  // namespace tact

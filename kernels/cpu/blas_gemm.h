// Row-major GEMM on OpenBLAS for float and double: C = alpha*op(A)*op(B) + beta*C
// with op(X) = X or X^T. Every tact kernel that multiplies matrices goes
// through here, so the empty-dimension rules live in one place: BLAS
// rejects leading dimensions of 0, so m == 0 or n == 0 does nothing and
// k == 0 only scales C by beta (C = 0 for beta == 0).
//
// Threads: OpenBLAS runs on the calling thread only. tact's kernels spread
// their work over the device's Eigen pool themselves (ParallelGemm, the conv
// kernels' image chunks); OpenBLAS's own pool beside it would put two sets
// of spinning threads on the same cores, which made CNN training spend half
// its time in OpenBLAS's thread hand-off on 2 cores. The first Gemm call
// sets OpenBLAS to one thread for the whole process; a caller that wants
// OpenBLAS's threads for a direct cblas call of its own (a benchmark's peer)
// sets them around that call and restores 1 (SetBlasThreads).
#pragma once

#include <cblas.h>

#include <cstdint>
#include <type_traits>

namespace tact {

// Sets OpenBLAS's thread count for the process (see above).
inline void SetBlasThreads(int threads) { openblas_set_num_threads(threads); }

namespace internal {
// Runs SetBlasThreads(1) once per process, before the first product.
inline void UseSingleThreadedBlas() {
  static const bool once = [] {
    SetBlasThreads(1);
    return true;
  }();
  (void)once;
}
}  // namespace internal

// As Gemm below, with explicit leading dimensions (the stored row lengths
// of A, B and C), so that a block of rows or columns of a larger product is
// one call.
template <typename T>
void GemmStrided(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha,
                 const T* a, int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == T(0) ? T(0) : beta * c[i * ldc + j];
    }
    return;
  }
  internal::UseSingleThreadedBlas();
  const CBLAS_TRANSPOSE ta = trans_a ? CblasTrans : CblasNoTrans;
  const CBLAS_TRANSPOSE tb = trans_b ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, ta, tb, static_cast<blasint>(m), static_cast<blasint>(n),
                static_cast<blasint>(k), alpha, a, static_cast<blasint>(lda), b,
                static_cast<blasint>(ldb), beta, c, static_cast<blasint>(ldc));
  } else {
    cblas_dgemm(CblasRowMajor, ta, tb, static_cast<blasint>(m), static_cast<blasint>(n),
                static_cast<blasint>(k), alpha, a, static_cast<blasint>(lda), b,
                static_cast<blasint>(ldb), beta, c, static_cast<blasint>(ldc));
  }
}

// A is [m, k] (stored [k, m] if trans_a), B is [k, n] (stored [n, k] if
// trans_b), C is [m, n] with leading dimension ldc (n if 0). A and B are
// stored densely. Runs on the calling thread.
template <typename T>
void Gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha, const T* a,
          const T* b, T beta, T* c, int64_t ldc = 0) {
  GemmStrided<T>(trans_a, trans_b, m, n, k, alpha, a, trans_a ? m : k, b, trans_b ? k : n, beta,
                 c, ldc == 0 ? n : ldc);
}

}  // namespace tact

// Row-major GEMM on OpenBLAS for float and double: C = alpha*op(A)*op(B) + beta*C
// with op(X) = X or X^T. Every tact kernel that multiplies matrices goes
// through here, so the empty-dimension rules live in one place: BLAS
// rejects leading dimensions of 0, so m == 0 or n == 0 does nothing and
// k == 0 only scales C by beta (C = 0 for beta == 0).
//
// Threads: OpenBLAS runs a large product on its own thread pool, sized by
// openblas_set_num_threads / OPENBLAS_NUM_THREADS, not by the tact device.
#pragma once

#include <cblas.h>

#include <cstdint>
#include <type_traits>

namespace tact {

// A is [m, k] (stored [k, m] if trans_a), B is [k, n] (stored [n, k] if
// trans_b), C is [m, n] with leading dimension ldc (n if 0). The leading
// dimensions of A and B are their stored row lengths.
template <typename T>
void Gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha, const T* a,
          const T* b, T beta, T* c, int64_t ldc = 0) {
  if (ldc == 0) ldc = n;
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == T(0) ? T(0) : beta * c[i * ldc + j];
    }
    return;
  }
  const CBLAS_TRANSPOSE ta = trans_a ? CblasTrans : CblasNoTrans;
  const CBLAS_TRANSPOSE tb = trans_b ? CblasTrans : CblasNoTrans;
  const blasint lda = static_cast<blasint>(trans_a ? m : k);
  const blasint ldb = static_cast<blasint>(trans_b ? k : n);
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, ta, tb, static_cast<blasint>(m), static_cast<blasint>(n),
                static_cast<blasint>(k), alpha, a, lda, b, ldb, beta, c,
                static_cast<blasint>(ldc));
  } else {
    cblas_dgemm(CblasRowMajor, ta, tb, static_cast<blasint>(m), static_cast<blasint>(n),
                static_cast<blasint>(k), alpha, a, lda, b, ldb, beta, c,
                static_cast<blasint>(ldc));
  }
}

}  // namespace tact

// Row-major GEMM: C = alpha*op(A)*op(B) + beta*C with op(X) = X or X^T (or,
// with `conjugate`, the conjugate transpose X^H of a complex X), on OpenBLAS
// for float, double, complex64 and complex128, and a plain loop that wraps
// for the integers (BLAS has none). Every tact kernel that multiplies matrices goes
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

#include <complex>
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

namespace internal {
// The integer GEMM: row by row of C, each row of op(B) scaled into it, so
// the inner loop runs along contiguous memory when B is not transposed.
template <typename T>
void IntegerGemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha,
                 const T* a, int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  using U = std::make_unsigned_t<T>;  // wraps instead of overflowing
  for (int64_t i = 0; i < m; ++i) {
    U* ci = reinterpret_cast<U*>(c + i * ldc);
    for (int64_t j = 0; j < n; ++j) ci[j] = beta == T(0) ? U(0) : U(beta) * ci[j];
    for (int64_t p = 0; p < k; ++p) {
      const U aip = U(alpha) * U(trans_a ? a[p * lda + i] : a[i * lda + p]);
      if (trans_b) {
        for (int64_t j = 0; j < n; ++j) ci[j] += aip * U(b[j * ldb + p]);
      } else {
        const T* bp = b + p * ldb;
        for (int64_t j = 0; j < n; ++j) ci[j] += aip * U(bp[j]);
      }
    }
  }
}

// A product with one row or one column (m == 1 or n == 1) as a
// matrix-vector product: GEMM packs the whole matrix into blocks before
// it multiplies, which for a single row costs more than the product (one
// image through the mlp's three layers took 45-55 us as GEMMs and 11 us as
// GEMVs, `tact bench serve`, docs/performance.md); GEMV reads the matrix
// once. C's row (or column) is zeroed first when beta is 0, so that
// whatever it held, a NaN included, is not scaled into the result.
template <typename T>
void Gemv(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha, const T* a,
          int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  auto gemv = [](CBLAS_TRANSPOSE t, int64_t rows, int64_t cols, T alpha, const T* mat, int64_t ld,
                 const T* x, int64_t incx, T beta, T* y, int64_t incy) {
    const auto R = static_cast<blasint>(rows), C = static_cast<blasint>(cols);
    const auto LD = static_cast<blasint>(ld), IX = static_cast<blasint>(incx);
    const auto IY = static_cast<blasint>(incy);
    if constexpr (std::is_same_v<T, float>) {
      cblas_sgemv(CblasRowMajor, t, R, C, alpha, mat, LD, x, IX, beta, y, IY);
    } else {
      cblas_dgemv(CblasRowMajor, t, R, C, alpha, mat, LD, x, IX, beta, y, IY);
    }
  };
  const int64_t len = m == 1 ? n : m, incy = m == 1 ? 1 : ldc;
  if (beta == T(0)) {
    for (int64_t i = 0; i < len; ++i) c[i * incy] = T(0);
    beta = T(1);
  }
  if (m == 1) {
    // y[j] = sum_p op(A)[0, p] op(B)[p, j]: x is A's row (a column when
    // A is stored transposed), and B stored [k, n] is read transposed.
    const int64_t incx = trans_a ? lda : 1;
    if (trans_b) {
      gemv(CblasNoTrans, n, k, alpha, b, ldb, a, incx, beta, c, incy);
    } else {
      gemv(CblasTrans, k, n, alpha, b, ldb, a, incx, beta, c, incy);
    }
  } else {
    // y[i] = sum_p op(A)[i, p] op(B)[p, 0]: x is B's column.
    const int64_t incx = trans_b ? 1 : ldb;
    if (trans_a) {
      gemv(CblasTrans, k, m, alpha, a, lda, b, incx, beta, c, incy);
    } else {
      gemv(CblasNoTrans, m, k, alpha, a, lda, b, incx, beta, c, incy);
    }
  }
}
}  // namespace internal

// As Gemm below, with explicit leading dimensions (the stored row lengths
// of A, B and C), so that a block of rows or columns of a larger product is
// one call.
template <typename T>
void GemmStrided(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha,
                 const T* a, int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc,
                 bool conjugate = false) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == T(0) ? T(0) : beta * c[i * ldc + j];
    }
    return;
  }
  if constexpr (std::is_integral_v<T>) {
    internal::IntegerGemm<T>(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  } else {
    internal::UseSingleThreadedBlas();
    if constexpr (std::is_floating_point_v<T>) {
      if (m == 1 || n == 1) {
        internal::Gemv<T>(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
        return;
      }
    }
    const CBLAS_TRANSPOSE trans = conjugate ? CblasConjTrans : CblasTrans;
    const CBLAS_TRANSPOSE ta = trans_a ? trans : CblasNoTrans;
    const CBLAS_TRANSPOSE tb = trans_b ? trans : CblasNoTrans;
    const auto M = static_cast<blasint>(m), N = static_cast<blasint>(n);
    const auto K = static_cast<blasint>(k);
    const auto LDA = static_cast<blasint>(lda), LDB = static_cast<blasint>(ldb);
    const auto LDC = static_cast<blasint>(ldc);
    if constexpr (std::is_same_v<T, float>) {
      cblas_sgemm(CblasRowMajor, ta, tb, M, N, K, alpha, a, LDA, b, LDB, beta, c, LDC);
    } else if constexpr (std::is_same_v<T, double>) {
      cblas_dgemm(CblasRowMajor, ta, tb, M, N, K, alpha, a, LDA, b, LDB, beta, c, LDC);
    } else if constexpr (std::is_same_v<T, std::complex<float>>) {
      cblas_cgemm(CblasRowMajor, ta, tb, M, N, K, &alpha, a, LDA, b, LDB, &beta, c, LDC);
    } else {
      static_assert(std::is_same_v<T, std::complex<double>>, "no GEMM for this type");
      cblas_zgemm(CblasRowMajor, ta, tb, M, N, K, &alpha, a, LDA, b, LDB, &beta, c, LDC);
    }
  }
}

// A is [m, k] (stored [k, m] if trans_a), B is [k, n] (stored [n, k] if
// trans_b), C is [m, n] with leading dimension ldc (n if 0). A and B are
// stored densely. Runs on the calling thread.
template <typename T>
void Gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha, const T* a,
          const T* b, T beta, T* c, int64_t ldc = 0, bool conjugate = false) {
  GemmStrided<T>(trans_a, trans_b, m, n, k, alpha, a, trans_a ? m : k, b, trans_b ? k : n, beta,
                 c, ldc == 0 ? n : ldc, conjugate);
}

}  // namespace tact

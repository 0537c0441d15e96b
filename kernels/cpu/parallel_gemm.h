// GEMM spread over the device's threads: C = alpha*op(A)*op(B) + beta*C as
// in Gemm (blas_gemm.h), cut into blocks of C's rows, or of its columns
// when C is short and wide (a dense layer's [batch, units]), each block one
// single-threaded BLAS call on the device's Eigen pool.
//
//   ParallelGemm<float>(ctx, false, false, m, n, k, 1.0f, a, b, 0.0f, c);
//
// Each element of C is computed by exactly one call, and the blocks depend
// only on m, n and k, except for the largest products, whose blocks of rows
// (one per thread) start where no OpenBLAS kernel computes a row otherwise
// (parallel_gemm.cc): the result's bits do not depend on the number of
// threads. Small products are one call on the calling thread.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/op_kernel.h"

namespace tact {

// For float, double, complex64, complex128, int32 and int64; `conjugate`
// makes a transposed complex operand conjugate-transposed.
template <typename T>
void ParallelGemm(OpKernelContext* ctx, bool trans_a, bool trans_b, int64_t m, int64_t n,
                  int64_t k, T alpha, const T* a, const T* b, T beta, T* c,
                  bool conjugate = false);

// A batch of products: C[i] = op(A[a_index[i]]) * op(B[b_index[i]]) for
// i < a_index.size(), where the matrices of A, B and C are stored densely one
// after another (m*k, k*n and m*n elements apart). Small products run side
// by side on the device's threads, one BLAS call each; larger ones one after
// another, each spread over the threads (ParallelGemm). BatchMatMul's
// broadcast batches and Einsum's contractions are this call.
template <typename T>
void BatchedGemm(OpKernelContext* ctx, bool trans_a, bool trans_b, int64_t m, int64_t n,
                 int64_t k, const T* a, const std::vector<int64_t>& a_index, const T* b,
                 const std::vector<int64_t>& b_index, T* c, bool conjugate = false);

}  // namespace tact

// The kernels behind reduction_launch.h.
//
// N == 1 (reduce contiguous rows): a block of kRowThreads per row, each
// thread combining a strided subset, then a shared-memory tree. N > 1: a
// block of kColX x kColY threads per tile of kColX columns, kColY threads
// down each column, then a tree over those. When that gives fewer than
// kFewBlocks blocks and K is long, K is cut into fixed chunks reduced by
// blocks of their own into `scratch`, and a second launch reduces the
// chunks: a GPU needs hundreds of blocks to be busy.
#include <cmath>

#include "kernels/gpu/cuda_helpers.cuh"
#include "kernels/gpu/reduction_launch.h"

namespace tact::gpu {
namespace {

template <typename T>
struct SumR {
  __device__ static T Identity() { return T(0); }
  __device__ static T Combine(T a, T b) { return a + b; }
};

// A NaN anywhere shows in the result, as on the CPU.
template <typename T>
struct MaxR {
  __device__ static T Identity() { return -static_cast<T>(INFINITY); }
  __device__ static T Combine(T a, T b) { return (a > b || a != a) ? a : b; }
};

constexpr int kRowThreads = 256;
constexpr int kColX = 32;
constexpr int kColY = 8;
// Fixed constants: changing one changes results in the last bits.
constexpr int64_t kRowChunk = 8192;  // elements of K per block when K is cut (N == 1)
constexpr int64_t kColChunk = 256;   // rows of K per block when K is cut (N > 1)
constexpr int64_t kFewBlocks = 256;

template <typename T>
__device__ __forceinline__ T Divide(T x, int64_t divisor) {
  return divisor == 1 ? x : x / static_cast<T>(divisor);
}

// Unit u = (row a, chunk c) reduces in[a, c*len .. min(K, (c+1)*len)) into out[u].
template <typename T, typename R>
__global__ void ReduceRowsKernel(const T* __restrict__ in, T* __restrict__ out, int64_t rows,
                                 int64_t K, int64_t chunks, int64_t len, int64_t divisor) {
  __shared__ T buf[kRowThreads];
  for (int64_t u = blockIdx.x; u < rows * chunks; u += gridDim.x) {
    const int64_t a = u / chunks, begin = (u % chunks) * len;
    const int64_t end = begin + len < K ? begin + len : K;
    const T* p = in + a * K;
    T acc = R::Identity();
    for (int64_t k = begin + threadIdx.x; k < end; k += kRowThreads) acc = R::Combine(acc, p[k]);
    buf[threadIdx.x] = acc;
    __syncthreads();
    for (int s = kRowThreads / 2; s > 0; s >>= 1) {
      if (threadIdx.x < s) buf[threadIdx.x] = R::Combine(buf[threadIdx.x], buf[threadIdx.x + s]);
      __syncthreads();
    }
    if (threadIdx.x == 0) out[u] = Divide(buf[0], divisor);
    __syncthreads();  // buf is reused by the next unit
  }
}

// Unit u = (slab a, chunk c, column tile t) reduces rows [c*len, ...) of
// columns [t*kColX, ...) of slab a into out[(a * chunks + c) * N + j].
template <typename T, typename R>
__global__ void ReduceColumnsKernel(const T* __restrict__ in, T* __restrict__ out, int64_t A,
                                    int64_t K, int64_t N, int64_t tiles, int64_t chunks,
                                    int64_t len, int64_t divisor) {
  __shared__ T buf[kColY][kColX];
  for (int64_t u = blockIdx.x; u < A * chunks * tiles; u += gridDim.x) {
    const int64_t a = u / (chunks * tiles), c = (u / tiles) % chunks;
    const int64_t j = (u % tiles) * kColX + threadIdx.x;
    const int64_t begin = c * len, end = begin + len < K ? begin + len : K;
    T acc = R::Identity();
    if (j < N) {
      const T* p = in + a * K * N + j;
      for (int64_t k = begin + threadIdx.y; k < end; k += kColY) acc = R::Combine(acc, p[k * N]);
    }
    buf[threadIdx.y][threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.y == 0 && j < N) {
      T r = buf[0][threadIdx.x];
      for (int y = 1; y < kColY; ++y) r = R::Combine(r, buf[y][threadIdx.x]);
      out[(a * chunks + c) * N + j] = Divide(r, divisor);
    }
    __syncthreads();
  }
}

// How K is cut: `chunks` pieces of `len` (1 piece of K when it is not).
struct Cut {
  int64_t chunks = 1;
  int64_t len = 0;
};

Cut CutFor(int64_t A, int64_t K, int64_t N) {
  const int64_t blocks = N == 1 ? A : A * ((N + kColX - 1) / kColX);
  const int64_t len = N == 1 ? kRowChunk : kColChunk;
  if (blocks >= kFewBlocks || K <= len) return {1, K};
  return {(K + len - 1) / len, len};
}

template <typename T, typename R>
cudaError_t Rows(const T* in, T* out, int64_t A, int64_t K, int64_t chunks, int64_t len,
                 int64_t divisor, cudaStream_t stream) {
  ReduceRowsKernel<T, R><<<cuda::Blocks(A * chunks, 1), kRowThreads, 0, stream>>>(
      in, out, A, K, chunks, len, divisor);
  return cudaGetLastError();
}

template <typename T, typename R>
cudaError_t Columns(const T* in, T* out, int64_t A, int64_t K, int64_t N, int64_t chunks,
                    int64_t len, int64_t divisor, cudaStream_t stream) {
  const int64_t tiles = (N + kColX - 1) / kColX;
  ReduceColumnsKernel<T, R><<<cuda::Blocks(A * chunks * tiles, 1), dim3(kColX, kColY), 0,
                              stream>>>(in, out, A, K, N, tiles, chunks, len, divisor);
  return cudaGetLastError();
}

template <typename T, typename R>
cudaError_t Reduce(const T* in, T* out, int64_t A, int64_t K, int64_t N, int64_t divisor,
                   T* scratch, cudaStream_t stream) {
  const Cut cut = CutFor(A, K, N);
  if (cut.chunks == 1) {
    return N == 1 ? Rows<T, R>(in, out, A, K, 1, K, divisor, stream)
                  : Columns<T, R>(in, out, A, K, N, 1, K, divisor, stream);
  }
  if (scratch == nullptr) return cudaErrorInvalidValue;
  // The chunks' partials, [A, chunks] or [A, chunks, N], then their reduction.
  cudaError_t err = N == 1 ? Rows<T, R>(in, scratch, A, K, cut.chunks, cut.len, 1, stream)
                           : Columns<T, R>(in, scratch, A, K, N, cut.chunks, cut.len, 1, stream);
  if (err != cudaSuccess) return err;
  return N == 1 ? Rows<T, R>(scratch, out, A, cut.chunks, 1, cut.chunks, divisor, stream)
                : Columns<T, R>(scratch, out, A, cut.chunks, N, 1, cut.chunks, divisor, stream);
}

template <typename T>
cudaError_t ReduceTyped(ReduceKind kind, const void* in, void* out, int64_t A, int64_t K,
                        int64_t N, int64_t divisor, void* scratch, cudaStream_t stream) {
  const T* i = static_cast<const T*>(in);
  T* o = static_cast<T*>(out);
  T* s = static_cast<T*>(scratch);
  return kind == ReduceKind::kSum ? Reduce<T, SumR<T>>(i, o, A, K, N, divisor, s, stream)
                                  : Reduce<T, MaxR<T>>(i, o, A, K, N, divisor, s, stream);
}

}  // namespace

int64_t ReduceScratchElements(int64_t A, int64_t K, int64_t N) {
  const Cut cut = CutFor(A, K, N);
  return cut.chunks == 1 ? 0 : A * cut.chunks * N;
}

cudaError_t LaunchReduce(ReduceKind kind, ElementType type, const void* in, void* out, int64_t A,
                         int64_t K, int64_t N, int64_t divisor, void* scratch,
                         cudaStream_t stream) {
  if (A == 0 || N == 0) return cudaSuccess;
  if (K < 1 || divisor < 1) return cudaErrorInvalidValue;
  switch (type) {
    case ElementType::kFloat:
      return ReduceTyped<float>(kind, in, out, A, K, N, divisor, scratch, stream);
    case ElementType::kDouble:
      return ReduceTyped<double>(kind, in, out, A, K, N, divisor, scratch, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace tact::gpu

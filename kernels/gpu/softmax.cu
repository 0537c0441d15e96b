// The kernels behind softmax_launch.h, with the CPU kernels' formulas
// (kernels/cpu/softmax_op.cc, xent_op.cc, softmax_row.h).
#include <cmath>

#include "kernels/gpu/cuda_helpers.cuh"
#include "kernels/gpu/softmax_launch.h"

namespace tact::gpu {
namespace {

constexpr int kThreads = 128;

// Every thread of the block gets op over the block's `v`s, combined by a
// fixed tree. `buf` holds kThreads elements.
template <typename T, typename Op>
__device__ T BlockReduce(T v, T* buf, Op op) {
  buf[threadIdx.x] = v;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) buf[threadIdx.x] = op(buf[threadIdx.x], buf[threadIdx.x + s]);
    __syncthreads();
  }
  const T r = buf[0];
  __syncthreads();  // buf may be reused at once
  return r;
}

template <typename T>
struct RowStats {
  T max;  // of the row
  T sum;  // of exp(x - max)
};

// The row's max and sum of exp(x - max); y (if not null) gets exp(x - max).
template <typename T>
__device__ RowStats<T> ShiftedExp(const T* x, T* y, int64_t n, T* buf) {
  T mx = -static_cast<T>(INFINITY);
  for (int64_t j = threadIdx.x; j < n; j += kThreads) mx = mx < x[j] ? x[j] : mx;
  // A NaN logit makes its row NaN through the sum, on both devices.
  mx = BlockReduce(mx, buf, [](T a, T b) { return (a < b || b != b) ? b : a; });
  T sum = 0;
  for (int64_t j = threadIdx.x; j < n; j += kThreads) {
    const T e = exp(x[j] - mx);
    if (y) y[j] = e;
    sum += e;
  }
  sum = BlockReduce(sum, buf, [](T a, T b) { return a + b; });
  return {mx, sum};
}

template <typename T, bool kLog>
__global__ void SoftmaxKernel(const T* __restrict__ x, T* __restrict__ y, int64_t rows,
                              int64_t classes) {
  __shared__ T buf[kThreads];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* xr = x + r * classes;
    T* yr = y + r * classes;
    const RowStats<T> s = ShiftedExp(xr, kLog ? nullptr : yr, classes, buf);
    if (kLog) {
      const T log_sum = log(s.sum);
      for (int64_t j = threadIdx.x; j < classes; j += kThreads) yr[j] = xr[j] - s.max - log_sum;
    } else {
      const T inv = T(1) / s.sum;
      for (int64_t j = threadIdx.x; j < classes; j += kThreads) yr[j] *= inv;
    }
  }
}

template <typename T, typename Label>
__global__ void SparseXentKernel(const T* __restrict__ x, const Label* __restrict__ labels,
                                 T* __restrict__ loss, T* __restrict__ backprop, int64_t batch,
                                 int64_t classes) {
  __shared__ T buf[kThreads];
  for (int64_t r = blockIdx.x; r < batch; r += gridDim.x) {
    const T* xr = x + r * classes;
    T* br = backprop + r * classes;
    const int64_t l = static_cast<int64_t>(labels[r]);
    if (l < 0 || l >= classes) {
      const T nan = static_cast<T>(NAN);
      for (int64_t j = threadIdx.x; j < classes; j += kThreads) br[j] = nan;
      if (threadIdx.x == 0) loss[r] = nan;
      continue;  // the condition is the block's: every thread skips alike
    }
    const RowStats<T> s = ShiftedExp(xr, br, classes, buf);
    const T inv = T(1) / s.sum;
    for (int64_t j = threadIdx.x; j < classes; j += kThreads) {
      br[j] = br[j] * inv - (j == l ? T(1) : T(0));
    }
    if (threadIdx.x == 0) loss[r] = log(s.sum) - (xr[l] - s.max);
  }
}

template <typename T>
cudaError_t Softmax(const void* logits, void* out, int64_t rows, int64_t classes, bool log,
                    cudaStream_t stream) {
  const T* x = static_cast<const T*>(logits);
  T* y = static_cast<T*>(out);
  if (log) {
    SoftmaxKernel<T, true><<<cuda::Blocks(rows, 1), kThreads, 0, stream>>>(x, y, rows, classes);
  } else {
    SoftmaxKernel<T, false><<<cuda::Blocks(rows, 1), kThreads, 0, stream>>>(x, y, rows, classes);
  }
  return cudaGetLastError();
}

template <typename T>
cudaError_t Xent(const void* features, const void* labels, bool labels_int64, void* loss,
                 void* backprop, int64_t batch, int64_t classes, cudaStream_t stream) {
  const T* x = static_cast<const T*>(features);
  T* lo = static_cast<T*>(loss);
  T* bp = static_cast<T*>(backprop);
  const int blocks = cuda::Blocks(batch, 1);
  if (labels_int64) {
    SparseXentKernel<T, int64_t><<<blocks, kThreads, 0, stream>>>(
        x, static_cast<const int64_t*>(labels), lo, bp, batch, classes);
  } else {
    SparseXentKernel<T, int32_t><<<blocks, kThreads, 0, stream>>>(
        x, static_cast<const int32_t*>(labels), lo, bp, batch, classes);
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchSoftmax(ElementType type, const void* logits, void* out, int64_t rows,
                          int64_t classes, bool log, cudaStream_t stream) {
  if (rows == 0 || classes == 0) return cudaSuccess;
  switch (type) {
    case ElementType::kFloat: return Softmax<float>(logits, out, rows, classes, log, stream);
    case ElementType::kDouble: return Softmax<double>(logits, out, rows, classes, log, stream);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t LaunchSparseXent(ElementType type, const void* features, const void* labels,
                             bool labels_int64, void* loss, void* backprop, int64_t batch,
                             int64_t classes, cudaStream_t stream) {
  if (batch == 0) return cudaSuccess;
  switch (type) {
    case ElementType::kFloat:
      return Xent<float>(features, labels, labels_int64, loss, backprop, batch, classes, stream);
    case ElementType::kDouble:
      return Xent<double>(features, labels, labels_int64, loss, backprop, batch, classes, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace tact::gpu

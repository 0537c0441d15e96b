// The kernel behind bias_add_launch.h.
#include "kernels/gpu/bias_add_launch.h"
#include "kernels/gpu/cuda_helpers.cuh"

namespace tact::gpu {
namespace {

template <typename T>
__global__ void BiasAddKernel(const T* __restrict__ value, const T* __restrict__ bias,
                              T* __restrict__ out, int64_t n, int64_t channels) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x) {
    out[i] = value[i] + bias[i % channels];
  }
}

template <typename T>
cudaError_t Launch(const void* value, const void* bias, void* out, int64_t n, int64_t channels,
                   cudaStream_t stream) {
  BiasAddKernel<T><<<cuda::Blocks(n), cuda::kThreads, 0, stream>>>(
      static_cast<const T*>(value), static_cast<const T*>(bias), static_cast<T*>(out), n,
      channels);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchBiasAdd(ElementType type, const void* value, const void* bias, void* out,
                          int64_t rows, int64_t channels, cudaStream_t stream) {
  const int64_t n = rows * channels;
  if (n == 0) return cudaSuccess;
  switch (type) {
    case ElementType::kFloat: return Launch<float>(value, bias, out, n, channels, stream);
    case ElementType::kDouble: return Launch<double>(value, bias, out, n, channels, stream);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace tact::gpu

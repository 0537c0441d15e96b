// The kernels behind fill_launch.h.
#include <type_traits>

#include "kernels/gpu/cuda_helpers.cuh"
#include "kernels/gpu/fill_launch.h"

namespace tact::gpu {
namespace {

template <typename T>
__global__ void FillFromDeviceKernel(const T* __restrict__ value, T* __restrict__ out, int64_t n) {
  const T v = *value;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x) {
    out[i] = v;
  }
}

template <typename T>
__global__ void FillConstantKernel(double value, T* __restrict__ out, int64_t n) {
  T v;
  if constexpr (std::is_same_v<T, bool>) {
    v = value != 0;
  } else if constexpr (std::is_integral_v<T>) {
    v = static_cast<T>(value);
  } else {
    v = cuda::Store<T>(static_cast<cuda::Compute<T>>(value));
  }
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x) {
    out[i] = v;
  }
}

}  // namespace

cudaError_t LaunchFillFromDevice(ElementType type, const void* value, void* out, int64_t n,
                                 cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  return cuda::DispatchAll(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    FillFromDeviceKernel<T><<<cuda::Blocks(n), cuda::kThreads, 0, stream>>>(
        static_cast<const T*>(value), static_cast<T*>(out), n);
    return cudaGetLastError();
  });
}

cudaError_t LaunchFillConstant(ElementType type, double value, void* out, int64_t n,
                               cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  return cuda::DispatchAll(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    FillConstantKernel<T><<<cuda::Blocks(n), cuda::kThreads, 0, stream>>>(
        value, static_cast<T*>(out), n);
    return cudaGetLastError();
  });
}

}  // namespace tact::gpu

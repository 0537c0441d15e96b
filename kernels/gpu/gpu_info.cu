#include "kernels/gpu/gpu_info.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

namespace tact::gpu {

int DeviceCount() {
  int n = 0;
  // Without libcuda.so this returns cudaErrorInsufficientDriver: no devices.
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error for later calls
    return 0;
  }
  return n;
}

std::string LibraryVersions() {
  int rt = 0;
  cudaRuntimeGetVersion(&rt);
  return "cudart " + std::to_string(rt) + ", cublas " + std::to_string(CUBLAS_VERSION) +
         ", cudnn " + std::to_string(cudnnGetVersion());
}

}  // namespace tact::gpu

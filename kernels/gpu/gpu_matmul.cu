#include "kernels/gpu/gpu_matmul.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>

#include "kernels/gpu/gpu_info.h"

namespace tact::gpu {
namespace {

// Frees whatever it holds on every return path.
struct Scratch {
  float* a = nullptr;
  float* b = nullptr;
  float* c = nullptr;
  cublasHandle_t handle = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  ~Scratch() {
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    if (handle) cublasDestroy(handle);
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
  }
};

Status Cuda(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return Status::OK();
  return errors::Internal(what, ": ", cudaGetErrorString(e));
}

}  // namespace

Status MatMulHost(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k,
                  float* millis) {
  if (DeviceCount() == 0) return errors::Unavailable("no CUDA device on this machine");
  if (m <= 0 || n <= 0 || k <= 0) return errors::InvalidArgument("matmul dims must be positive");
  Scratch s;
  const size_t sa = m * k * sizeof(float), sb = k * n * sizeof(float), sc = m * n * sizeof(float);
  TACT_RETURN_IF_ERROR(Cuda(cudaMalloc(&s.a, sa), "cudaMalloc"));
  TACT_RETURN_IF_ERROR(Cuda(cudaMalloc(&s.b, sb), "cudaMalloc"));
  TACT_RETURN_IF_ERROR(Cuda(cudaMalloc(&s.c, sc), "cudaMalloc"));
  TACT_RETURN_IF_ERROR(Cuda(cudaMemcpy(s.a, a, sa, cudaMemcpyHostToDevice), "cudaMemcpy"));
  TACT_RETURN_IF_ERROR(Cuda(cudaMemcpy(s.b, b, sb, cudaMemcpyHostToDevice), "cudaMemcpy"));
  if (cublasCreate(&s.handle) != CUBLAS_STATUS_SUCCESS) return errors::Internal("cublasCreate failed");
  TACT_RETURN_IF_ERROR(Cuda(cudaEventCreate(&s.start), "cudaEventCreate"));
  TACT_RETURN_IF_ERROR(Cuda(cudaEventCreate(&s.stop), "cudaEventCreate"));
  const float alpha = 1.0f, beta = 0.0f;
  // cuBLAS is column-major: row-major C = A*B is column-major C^T = B^T * A^T.
  cudaEventRecord(s.start);
  cublasStatus_t st = cublasSgemm(s.handle, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n),
                                  static_cast<int>(m), static_cast<int>(k), &alpha, s.b,
                                  static_cast<int>(n), s.a, static_cast<int>(k), &beta, s.c,
                                  static_cast<int>(n));
  cudaEventRecord(s.stop);
  if (st != CUBLAS_STATUS_SUCCESS) return errors::Internal("cublasSgemm failed: ", static_cast<int>(st));
  TACT_RETURN_IF_ERROR(Cuda(cudaEventSynchronize(s.stop), "cudaEventSynchronize"));
  if (millis) cudaEventElapsedTime(millis, s.start, s.stop);
  return Cuda(cudaMemcpy(c, s.c, sc, cudaMemcpyDeviceToHost), "cudaMemcpy");
}

}  // namespace tact::gpu

// What the .cu files of kernels/gpu share: launch geometry for grid-stride
// loops, float views of half and bfloat16, and the dispatch from an
// ElementType tag to a template instantiation. CUDA-only (nvcc).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/gpu/element_type.h"

namespace tact::gpu::cuda {

constexpr int kThreads = 256;
// Enough blocks to fill any current GPU several times over; grid-stride
// loops cover the rest, so the grid never depends on the tensor's size
// beyond this cap.
constexpr int64_t kMaxBlocks = 4096;

inline int Blocks(int64_t n, int threads = kThreads) {
  const int64_t b = (n + threads - 1) / threads;
  return static_cast<int>(b < kMaxBlocks ? (b < 1 ? 1 : b) : kMaxBlocks);
}

// The type arithmetic on T is done in: float for the 16-bit floats (as the
// CPU kernels compute them), T otherwise.
template <typename T> struct ComputeOf { using type = T; };
template <> struct ComputeOf<__half> { using type = float; };
template <> struct ComputeOf<__nv_bfloat16> { using type = float; };
template <typename T>
using Compute = typename ComputeOf<T>::type;

template <typename T>
__device__ __forceinline__ Compute<T> Load(const T& x) { return static_cast<Compute<T>>(x); }
template <typename T>
__device__ __forceinline__ T Store(Compute<T> x) { return static_cast<T>(x); }
template <>
__device__ __forceinline__ float Load(const __half& x) { return __half2float(x); }
template <>
__device__ __forceinline__ float Load(const __nv_bfloat16& x) { return __bfloat162float(x); }
// Round to nearest even, like tact::half(float) and tact::bfloat16(float).
template <>
__device__ __forceinline__ __half Store<__half>(float x) { return __float2half_rn(x); }
template <>
__device__ __forceinline__ __nv_bfloat16 Store<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}

template <typename T>
struct Tag { using type = T; };

// Calls fn(Tag<T>{}) for the C++ type of `t` among the floating types;
// cudaErrorInvalidValue for any other.
template <typename Fn>
cudaError_t DispatchFloating(ElementType t, Fn&& fn) {
  switch (t) {
    case ElementType::kFloat: return fn(Tag<float>{});
    case ElementType::kDouble: return fn(Tag<double>{});
    case ElementType::kHalf: return fn(Tag<__half>{});
    case ElementType::kBfloat16: return fn(Tag<__nv_bfloat16>{});
    default: return cudaErrorInvalidValue;
  }
}

// The floating types and int64.
template <typename Fn>
cudaError_t DispatchReal(ElementType t, Fn&& fn) {
  if (t == ElementType::kInt64) return fn(Tag<int64_t>{});
  return DispatchFloating(t, fn);
}

// Every ElementType.
template <typename Fn>
cudaError_t DispatchAll(ElementType t, Fn&& fn) {
  if (t == ElementType::kBool) return fn(Tag<bool>{});
  return DispatchReal(t, fn);
}

}  // namespace tact::gpu::cuda

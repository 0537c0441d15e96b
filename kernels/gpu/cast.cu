// The kernel behind cast_launch.h: one instantiation per (source,
// destination) pair, each the CPU's Convert (kernels/cpu/cast_op.cc).
#include <type_traits>

#include "kernels/gpu/cast_launch.h"
#include "kernels/gpu/cuda_helpers.cuh"

namespace tact::gpu {
namespace {

template <typename T>
constexpr bool kIs16Bit = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

// Every source value as bool, int64 or double, as the CPU's Widen.
template <typename S>
__device__ __forceinline__ auto Widen(S x) {
  if constexpr (kIs16Bit<S>) {
    return static_cast<double>(cuda::Load(x));
  } else if constexpr (std::is_same_v<S, float>) {
    return static_cast<double>(x);
  } else {
    return x;
  }
}

__device__ __forceinline__ int64_t SaturateToInt64(double v) {
  if (v != v) return 0;
  constexpr double kUpper = 9223372036854775808.0;  // 2^63, the first value past the max
  if (v >= kUpper) return INT64_MAX;
  if (v <= -kUpper) return INT64_MIN;
  return static_cast<int64_t>(v);
}

template <typename D, typename S>
__device__ __forceinline__ D Convert(S src) {
  const auto x = Widen(src);
  using W = std::remove_cv_t<decltype(x)>;
  if constexpr (std::is_same_v<D, bool>) {
    return x != W(0);
  } else if constexpr (kIs16Bit<D>) {
    return cuda::Store<D>(static_cast<float>(x));
  } else if constexpr (std::is_integral_v<D> && std::is_floating_point_v<W>) {
    return SaturateToInt64(x);
  } else {
    return static_cast<D>(x);
  }
}

template <typename S, typename D>
__global__ void CastKernel(const S* __restrict__ in, D* __restrict__ out, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x) {
    out[i] = Convert<D>(in[i]);
  }
}

}  // namespace

cudaError_t LaunchCast(ElementType src, ElementType dst, const void* in, void* out, int64_t n,
                       cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  return cuda::DispatchAll(src, [&](auto s) {
    return cuda::DispatchAll(dst, [&](auto d) {
      using S = typename decltype(s)::type;
      using D = typename decltype(d)::type;
      CastKernel<S, D><<<cuda::Blocks(n), cuda::kThreads, 0, stream>>>(
          static_cast<const S*>(in), static_cast<D*>(out), n);
      return cudaGetLastError();
    });
  });
}

}  // namespace tact::gpu

// The kernels behind training_launch.h. Each thread reads the scalars
// itself (one cached load per warp), so no launch depends on host values.
#include <cmath>

#include "kernels/gpu/cuda_helpers.cuh"
#include "kernels/gpu/training_launch.h"

namespace tact::gpu {
namespace {

#define TACT_GRID_STRIDE(i, n)                                              \
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < (n); \
       i += int64_t{blockDim.x} * gridDim.x)

template <typename T>
__global__ void GradientDescentKernel(T* __restrict__ var, const T* __restrict__ alpha,
                                      const T* __restrict__ delta, int64_t n) {
  const T a = *alpha;
  TACT_GRID_STRIDE(i, n) { var[i] -= a * delta[i]; }
}

template <typename T>
__global__ void MomentumKernel(T* __restrict__ var, T* __restrict__ accum, const T* __restrict__ lr,
                               const T* __restrict__ grad, const T* __restrict__ momentum,
                               bool nesterov, int64_t n) {
  const T l = *lr, mom = *momentum;
  TACT_GRID_STRIDE(i, n) {
    const T g = grad[i];
    const T a = accum[i] * mom + g;
    accum[i] = a;
    var[i] -= nesterov ? l * (g + mom * a) : l * a;
  }
}

template <typename T>
__global__ void AdamKernel(T* __restrict__ var, T* __restrict__ m, T* __restrict__ v,
                           const T* __restrict__ beta1_power, const T* __restrict__ beta2_power,
                           const T* __restrict__ lr, const T* __restrict__ beta1,
                           const T* __restrict__ beta2, const T* __restrict__ epsilon,
                           const T* __restrict__ grad, int64_t n) {
  const T lr_t = *lr * sqrt(T(1) - *beta2_power) / (T(1) - *beta1_power);
  const T one_minus_beta1 = T(1) - *beta1;
  const T one_minus_beta2 = T(1) - *beta2;
  const T eps = *epsilon;
  TACT_GRID_STRIDE(i, n) {
    const T g = grad[i];
    const T mi = m[i] + (g - m[i]) * one_minus_beta1;
    const T vi = v[i] + (g * g - v[i]) * one_minus_beta2;
    m[i] = mi;
    v[i] = vi;
    var[i] -= lr_t * mi / (sqrt(vi) + eps);
  }
}
template <typename T>
__global__ void RMSPropKernel(T* __restrict__ var, T* __restrict__ ms, T* __restrict__ mom,
                              const T* __restrict__ lr, const T* __restrict__ rho,
                              const T* __restrict__ momentum, const T* __restrict__ epsilon,
                              const T* __restrict__ grad, int64_t n) {
  const T l = *lr, one_minus_rho = T(1) - *rho, mu = *momentum, eps = *epsilon;
  TACT_GRID_STRIDE(i, n) {
    const T g = grad[i];
    const T s = ms[i] + (g * g - ms[i]) * one_minus_rho;
    const T m = mom[i] * mu + l * g / sqrt(s + eps);
    ms[i] = s;
    mom[i] = m;
    var[i] -= m;
  }
}

template <typename T>
__global__ void AdagradKernel(T* __restrict__ var, T* __restrict__ accum,
                              const T* __restrict__ lr, const T* __restrict__ epsilon,
                              const T* __restrict__ grad, bool update_slots, int64_t n) {
  const T l = *lr, eps = epsilon ? *epsilon : T(0);
  TACT_GRID_STRIDE(i, n) {
    const T g = grad[i];
    const T a = update_slots ? accum[i] + g * g : accum[i];
    accum[i] = a;
    var[i] -= l * g / (sqrt(a) + eps);
  }
}
#undef TACT_GRID_STRIDE

template <typename T>
const T* P(const void* p) { return static_cast<const T*>(p); }

template <typename Fn>
cudaError_t ForFloatOrDouble(ElementType type, Fn&& fn) {
  switch (type) {
    case ElementType::kFloat: return fn(cuda::Tag<float>{});
    case ElementType::kDouble: return fn(cuda::Tag<double>{});
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace

cudaError_t LaunchApplyGradientDescent(ElementType type, void* var, const void* alpha,
                                       const void* delta, int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  return ForFloatOrDouble(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    GradientDescentKernel<T><<<cuda::Blocks(n), cuda::kThreads, 0, stream>>>(
        static_cast<T*>(var), P<T>(alpha), P<T>(delta), n);
    return cudaGetLastError();
  });
}

cudaError_t LaunchApplyMomentum(ElementType type, void* var, void* accum, const void* lr,
                                const void* grad, const void* momentum, bool nesterov, int64_t n,
                                cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  return ForFloatOrDouble(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    MomentumKernel<T><<<cuda::Blocks(n), cuda::kThreads, 0, stream>>>(
        static_cast<T*>(var), static_cast<T*>(accum), P<T>(lr), P<T>(grad), P<T>(momentum),
        nesterov, n);
    return cudaGetLastError();
  });
}

cudaError_t LaunchApplyAdam(ElementType type, void* var, void* m, void* v,
                            const AdamScalars& s, const void* grad, int64_t n,
                            cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  return ForFloatOrDouble(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    AdamKernel<T><<<cuda::Blocks(n), cuda::kThreads, 0, stream>>>(
        static_cast<T*>(var), static_cast<T*>(m), static_cast<T*>(v), P<T>(s.beta1_power),
        P<T>(s.beta2_power), P<T>(s.lr), P<T>(s.beta1), P<T>(s.beta2), P<T>(s.epsilon),
        P<T>(grad), n);
    return cudaGetLastError();
  });
}

cudaError_t LaunchApplyRMSProp(ElementType type, void* var, void* ms, void* mom,
                               const void* const scalars[4], const void* grad, int64_t n,
                               cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  return ForFloatOrDouble(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    RMSPropKernel<T><<<cuda::Blocks(n), cuda::kThreads, 0, stream>>>(
        static_cast<T*>(var), static_cast<T*>(ms), static_cast<T*>(mom), P<T>(scalars[0]),
        P<T>(scalars[1]), P<T>(scalars[2]), P<T>(scalars[3]), P<T>(grad), n);
    return cudaGetLastError();
  });
}

cudaError_t LaunchApplyAdagrad(ElementType type, void* var, void* accum, const void* lr,
                               const void* epsilon, const void* grad, bool update_slots,
                               int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  return ForFloatOrDouble(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    AdagradKernel<T><<<cuda::Blocks(n), cuda::kThreads, 0, stream>>>(
        static_cast<T*>(var), static_cast<T*>(accum), P<T>(lr), P<T>(epsilon), P<T>(grad),
        update_slots, n);
    return cudaGetLastError();
  });
}

}  // namespace tact::gpu

// The kernels behind cwise_unary_launch.h. Each functor is the CPU
// functor's scalar definition (kernels/cpu/cwise_unary_ops.cc,
// cwise_math_ops.cc and cwise_grad_ops.cc) on float or double, so the two devices agree up to
// the last bits of the math library.
#include <cmath>

#include "kernels/gpu/cuda_helpers.cuh"
#include "kernels/gpu/cwise_unary_launch.h"

namespace tact::gpu {
namespace {

using cuda::Compute;
using cuda::Load;
using cuda::Store;

// SELU's constants, as the CPU's.
constexpr double kSeluScale = 1.0507009873554804934193349852946;
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;

template <UnaryOpKind K>
struct UnaryF;

#define TACT_UNARY_F(KIND, EXPR)                                         \
  template <>                                                            \
  struct UnaryF<UnaryOpKind::KIND> {                                     \
    template <typename C>                                                \
    __device__ __forceinline__ static C Apply(C x) { return EXPR; }      \
  }
TACT_UNARY_F(kNeg, -x);
TACT_UNARY_F(kAbs, fabs(x));
TACT_UNARY_F(kSquare, x * x);
// NaN stays NaN.
TACT_UNARY_F(kSign, x != x ? x : static_cast<C>((x > C(0)) - (x < C(0))));
TACT_UNARY_F(kExp, exp(x));
TACT_UNARY_F(kLog, log(x));
TACT_UNARY_F(kSqrt, sqrt(x));
// 1 / sqrt rather than rsqrt, whose approximation differs from the CPU's.
TACT_UNARY_F(kRsqrt, C(1) / sqrt(x));
TACT_UNARY_F(kTanh, tanh(x));
TACT_UNARY_F(kSigmoid, C(1) / (C(1) + exp(-x)));
// NaN > 0 is false: a NaN feature gives 0, as on the CPU.
TACT_UNARY_F(kRelu, x > C(0) ? x : C(0));
TACT_UNARY_F(kRelu6, x > C(0) ? (x < C(6) ? x : C(6)) : C(0));
TACT_UNARY_F(kElu, x < C(0) ? exp(x) - C(1) : x);
TACT_UNARY_F(kSoftplus, (x > C(0) ? x : C(0)) + log1p(exp(-fabs(x))));
TACT_UNARY_F(kReciprocal, C(1) / x);
TACT_UNARY_F(kSin, sin(x));
TACT_UNARY_F(kCos, cos(x));
TACT_UNARY_F(kTan, tan(x));
TACT_UNARY_F(kAsin, asin(x));
TACT_UNARY_F(kAcos, acos(x));
TACT_UNARY_F(kAtan, atan(x));
TACT_UNARY_F(kSinh, sinh(x));
TACT_UNARY_F(kCosh, cosh(x));
TACT_UNARY_F(kLog1p, log1p(x));
TACT_UNARY_F(kExpm1, expm1(x));
TACT_UNARY_F(kErf, erf(x));
TACT_UNARY_F(kErfc, erfc(x));
TACT_UNARY_F(kFloor, floor(x));
TACT_UNARY_F(kCeil, ceil(x));
// Halves to even, as the CPU's rint.
TACT_UNARY_F(kRint, rint(x));
TACT_UNARY_F(kSoftsign, x / (C(1) + fabs(x)));
TACT_UNARY_F(kSelu, x < C(0) ? C(kSeluScale * kSeluAlpha) * (exp(x) - C(1)) : C(kSeluScale) * x);
#undef TACT_UNARY_F

template <UnaryGradKind K>
struct GradF;

#define TACT_GRAD_F(KIND, EXPR)                                            \
  template <>                                                              \
  struct GradF<UnaryGradKind::KIND> {                                      \
    template <typename C>                                                  \
    __device__ __forceinline__ static C Apply(C a, C b) { return EXPR; }   \
  }
// (gradients, features)
TACT_GRAD_F(kReluGrad, b > C(0) ? a : C(0));
TACT_GRAD_F(kRelu6Grad, (b > C(0) && b < C(6)) ? a : C(0));
TACT_GRAD_F(kSoftplusGrad, a / (C(1) + exp(-b)));
// (gradients, outputs)
TACT_GRAD_F(kEluGrad, b < C(0) ? a * (b + C(1)) : a);
// (y, dy)
TACT_GRAD_F(kSigmoidGrad, b * (a * (C(1) - a)));
TACT_GRAD_F(kTanhGrad, b * (C(1) - a * a));
TACT_GRAD_F(kRsqrtGrad, b * (C(-0.5) * a * a * a));
TACT_GRAD_F(kSqrtGrad, b * C(0.5) / a);
#undef TACT_GRAD_F

template <typename T, typename F>
__global__ void UnaryKernel(const T* __restrict__ x, T* __restrict__ y, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x) {
    y[i] = Store<T>(F::template Apply<Compute<T>>(Load(x[i])));
  }
}

template <typename T, typename F>
__global__ void GradKernel(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ z,
                           int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x) {
    z[i] = Store<T>(F::template Apply<Compute<T>>(Load(a[i]), Load(b[i])));
  }
}

template <typename F>
cudaError_t Unary(ElementType type, const void* x, void* y, int64_t n, cudaStream_t stream) {
  return cuda::DispatchFloating(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    UnaryKernel<T, F><<<cuda::Blocks(n), cuda::kThreads, 0, stream>>>(
        static_cast<const T*>(x), static_cast<T*>(y), n);
    return cudaGetLastError();
  });
}

template <typename F>
cudaError_t Grad(ElementType type, const void* a, const void* b, void* z, int64_t n,
                 cudaStream_t stream) {
  return cuda::DispatchFloating(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    GradKernel<T, F><<<cuda::Blocks(n), cuda::kThreads, 0, stream>>>(
        static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(z), n);
    return cudaGetLastError();
  });
}

}  // namespace

cudaError_t LaunchUnary(UnaryOpKind op, ElementType type, const void* x, void* y, int64_t n,
                        cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  switch (op) {
#define TACT_CASE(KIND) \
  case UnaryOpKind::KIND: return Unary<UnaryF<UnaryOpKind::KIND>>(type, x, y, n, stream);
    TACT_CASE(kNeg) TACT_CASE(kAbs) TACT_CASE(kSquare) TACT_CASE(kSign) TACT_CASE(kExp)
    TACT_CASE(kLog) TACT_CASE(kSqrt) TACT_CASE(kRsqrt) TACT_CASE(kTanh) TACT_CASE(kSigmoid)
    TACT_CASE(kRelu) TACT_CASE(kRelu6) TACT_CASE(kElu) TACT_CASE(kSoftplus)
    TACT_CASE(kReciprocal) TACT_CASE(kSin) TACT_CASE(kCos) TACT_CASE(kTan) TACT_CASE(kAsin)
    TACT_CASE(kAcos) TACT_CASE(kAtan) TACT_CASE(kSinh) TACT_CASE(kCosh) TACT_CASE(kLog1p)
    TACT_CASE(kExpm1) TACT_CASE(kErf) TACT_CASE(kErfc) TACT_CASE(kFloor) TACT_CASE(kCeil)
    TACT_CASE(kRint) TACT_CASE(kSoftsign) TACT_CASE(kSelu)
#undef TACT_CASE
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchUnaryGrad(UnaryGradKind op, ElementType type, const void* a, const void* b,
                            void* z, int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  switch (op) {
#define TACT_CASE(KIND) \
  case UnaryGradKind::KIND: return Grad<GradF<UnaryGradKind::KIND>>(type, a, b, z, n, stream);
    TACT_CASE(kReluGrad) TACT_CASE(kRelu6Grad) TACT_CASE(kEluGrad) TACT_CASE(kSoftplusGrad)
    TACT_CASE(kSigmoidGrad) TACT_CASE(kTanhGrad) TACT_CASE(kRsqrtGrad) TACT_CASE(kSqrtGrad)
#undef TACT_CASE
  }
  return cudaErrorInvalidValue;
}

}  // namespace tact::gpu

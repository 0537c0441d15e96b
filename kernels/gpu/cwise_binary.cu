// The kernels behind cwise_binary_launch.h. Each functor is the CPU
// functor's definition (kernels/cpu/cwise_binary_ops.cc and
// cwise_compare_ops.cc); int64 arithmetic wraps through uint64, half and
// bfloat16 compute in float and round once.
#include <type_traits>

#include "kernels/gpu/cuda_helpers.cuh"
#include "kernels/gpu/cwise_binary_launch.h"

namespace tact::gpu {
namespace {

using cuda::Compute;
using cuda::Load;
using cuda::Store;

template <typename C>
__device__ __forceinline__ C Wrap(uint64_t v) { return static_cast<C>(v); }

template <typename C>
__device__ __forceinline__ C WrappingAdd(C a, C b) {
  if constexpr (std::is_integral_v<C>) return Wrap<C>(uint64_t(a) + uint64_t(b));
  else return a + b;
}
template <typename C>
__device__ __forceinline__ C WrappingSub(C a, C b) {
  if constexpr (std::is_integral_v<C>) return Wrap<C>(uint64_t(a) - uint64_t(b));
  else return a - b;
}
template <typename C>
__device__ __forceinline__ C WrappingMul(C a, C b) {
  if constexpr (std::is_integral_v<C>) return Wrap<C>(uint64_t(a) * uint64_t(b));
  else return a * b;
}

template <BinaryOpKind K>
struct BinaryF;
#define TACT_BINARY_F(KIND, EXPR)                                           \
  template <>                                                               \
  struct BinaryF<BinaryOpKind::KIND> {                                      \
    template <typename C>                                                   \
    __device__ __forceinline__ static C Apply(C a, C b) { return EXPR; }    \
  }
TACT_BINARY_F(kAdd, WrappingAdd(a, b));
TACT_BINARY_F(kSub, WrappingSub(a, b));
TACT_BINARY_F(kMul, WrappingMul(a, b));
TACT_BINARY_F(kDiv, a / b);
// std::max / std::min's rule, as on the CPU: a NaN in x propagates, one in
// y does not.
TACT_BINARY_F(kMaximum, a < b ? b : a);
TACT_BINARY_F(kMinimum, b < a ? b : a);
TACT_BINARY_F(kSquaredDifference, WrappingMul(WrappingSub(a, b), WrappingSub(a, b)));
#undef TACT_BINARY_F

template <CompareOpKind K>
struct CompareF;
#define TACT_COMPARE_F(KIND, EXPR)                                            \
  template <>                                                                 \
  struct CompareF<CompareOpKind::KIND> {                                      \
    template <typename C>                                                     \
    __device__ __forceinline__ static bool Apply(C a, C b) { return EXPR; }   \
  }
TACT_COMPARE_F(kEqual, a == b);
TACT_COMPARE_F(kNotEqual, a != b);
TACT_COMPARE_F(kLess, a < b);
TACT_COMPARE_F(kLessEqual, a <= b);
TACT_COMPARE_F(kGreater, a > b);
TACT_COMPARE_F(kGreaterEqual, a >= b);
#undef TACT_COMPARE_F

// The result of F on T operands, stored as Out: T itself for arithmetic
// (rounded back from float for the 16-bit types), bool for comparisons.
template <typename T, typename Out, typename F>
__device__ __forceinline__ Out Call(const T& a, const T& b) {
  if constexpr (std::is_same_v<Out, bool>) {
    return F::template Apply<Compute<T>>(Load(a), Load(b));
  } else {
    return Store<T>(F::template Apply<Compute<T>>(Load(a), Load(b)));
  }
}

// Index is uint32_t when the output has at most 2^31 elements (so that
// i + the grid's stride cannot wrap): the per-dimension divisions then
// cost a quarter of 64-bit ones.
template <typename T, typename Out, typename F, typename Index>
__global__ void BroadcastKernel(BroadcastWalk w, const T* __restrict__ x, const T* __restrict__ y,
                                Out* __restrict__ z, Index n) {
  for (Index i = blockIdx.x * Index{blockDim.x} + threadIdx.x; i < n;
       i += Index{blockDim.x} * gridDim.x) {
    Index rem = i, xo = 0, yo = 0;
    for (int d = w.rank - 1; d > 0; --d) {
      const Index dim = static_cast<Index>(w.dims[d]);
      const Index k = rem % dim;
      rem /= dim;
      xo += k * static_cast<Index>(w.x_strides[d]);
      yo += k * static_cast<Index>(w.y_strides[d]);
    }
    xo += rem * static_cast<Index>(w.x_strides[0]);
    yo += rem * static_cast<Index>(w.y_strides[0]);
    z[i] = Call<T, Out, F>(x[xo], y[yo]);
  }
}

template <typename T, typename Out, typename F>
cudaError_t Launch(const BroadcastWalk& w, const void* x, const void* y, void* z,
                   cudaStream_t stream) {
  if (w.rank < 1 || w.rank > kMaxBroadcastDims) return cudaErrorInvalidValue;
  int64_t n = 1;
  for (int d = 0; d < w.rank; ++d) n *= w.dims[d];
  if (n == 0) return cudaSuccess;
  const T* px = static_cast<const T*>(x);
  const T* py = static_cast<const T*>(y);
  Out* pz = static_cast<Out*>(z);
  if (n <= (int64_t{1} << 31)) {
    BroadcastKernel<T, Out, F, uint32_t><<<cuda::Blocks(n), cuda::kThreads, 0, stream>>>(
        w, px, py, pz, static_cast<uint32_t>(n));
  } else {
    BroadcastKernel<T, Out, F, int64_t><<<cuda::Blocks(n), cuda::kThreads, 0, stream>>>(
        w, px, py, pz, n);
  }
  return cudaGetLastError();
}

template <typename F>
cudaError_t Binary(ElementType type, const BroadcastWalk& w, const void* x, const void* y,
                   void* z, cudaStream_t stream) {
  return cuda::DispatchReal(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return Launch<T, T, F>(w, x, y, z, stream);
  });
}

template <typename F>
cudaError_t Compare(ElementType type, const BroadcastWalk& w, const void* x, const void* y,
                    bool* z, cudaStream_t stream) {
  return cuda::DispatchAll(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return Launch<T, bool, F>(w, x, y, z, stream);
  });
}

}  // namespace

cudaError_t LaunchBinary(BinaryOpKind op, ElementType type, const BroadcastWalk& walk,
                         const void* x, const void* y, void* z, cudaStream_t stream) {
  switch (op) {
#define TACT_CASE(KIND) \
  case BinaryOpKind::KIND: return Binary<BinaryF<BinaryOpKind::KIND>>(type, walk, x, y, z, stream);
    TACT_CASE(kAdd) TACT_CASE(kSub) TACT_CASE(kMul) TACT_CASE(kMaximum) TACT_CASE(kMinimum)
    TACT_CASE(kSquaredDifference)
#undef TACT_CASE
    case BinaryOpKind::kDiv:
      if (type == ElementType::kInt64) return cudaErrorInvalidValue;
      return Binary<BinaryF<BinaryOpKind::kDiv>>(type, walk, x, y, z, stream);
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchCompare(CompareOpKind op, ElementType type, const BroadcastWalk& walk,
                          const void* x, const void* y, bool* z, cudaStream_t stream) {
  switch (op) {
#define TACT_CASE(KIND) \
  case CompareOpKind::KIND: return Compare<CompareF<CompareOpKind::KIND>>(type, walk, x, y, z, stream);
    TACT_CASE(kEqual) TACT_CASE(kNotEqual) TACT_CASE(kLess) TACT_CASE(kLessEqual)
    TACT_CASE(kGreater) TACT_CASE(kGreaterEqual)
#undef TACT_CASE
  }
  return cudaErrorInvalidValue;
}

}  // namespace tact::gpu

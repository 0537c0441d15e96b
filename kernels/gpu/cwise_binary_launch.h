// Broadcasting element-wise binary ops on the GPU: the CUDA side of
// cwise_binary_ops.cc. The host folds the two shapes (kernels/cpu/
// broadcast.h's BCast) into at most kMaxBroadcastDims dimensions with a
// stride per input (0 where that input is broadcast); one grid-stride
// kernel then walks the output. Nothing waits; the launch's error comes back.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/gpu/element_type.h"

namespace tact::gpu {

// Folded broadcasts of real graphs have rank 1 to 3; more than this many
// folded dimensions is refused by the kernel (InvalidArgument).
constexpr int kMaxBroadcastDims = 6;

// The folded output walk: `dims` row-major, x's element for output index
// (i0..ir) is x[sum i_d * x_strides[d]], likewise for y.
struct BroadcastWalk {
  int rank = 1;
  int64_t dims[kMaxBroadcastDims] = {};
  int64_t x_strides[kMaxBroadcastDims] = {};
  int64_t y_strides[kMaxBroadcastDims] = {};
};

// The functions of kernels/cpu/cwise_binary_ops.cc, with its definitions.
enum class BinaryOpKind { kAdd, kSub, kMul, kDiv, kMaximum, kMinimum, kSquaredDifference };
// kernels/cpu/cwise_compare_ops.cc; the output is bool.
enum class CompareOpKind { kEqual, kNotEqual, kLess, kLessEqual, kGreater, kGreaterEqual };

// z = op(x, y) over the walk's dims; `type` is a floating type or int64
// (wrapping, as on the CPU; kDiv is floating only: integer division's zero
// check needs the divisor on the host).
cudaError_t LaunchBinary(BinaryOpKind op, ElementType type, const BroadcastWalk& walk,
                         const void* x, const void* y, void* z, cudaStream_t stream);
// bool z = op(x, y); `type` is a floating type, int64 or (for kEqual and
// kNotEqual) bool.
cudaError_t LaunchCompare(CompareOpKind op, ElementType type, const BroadcastWalk& walk,
                          const void* x, const void* y, bool* z, cudaStream_t stream);

}  // namespace tact::gpu

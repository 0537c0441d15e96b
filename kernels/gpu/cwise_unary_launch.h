// Element-wise unary math and activations on the GPU, and the gradients of
// the activations: the CUDA side of cwise_unary_ops.cc. Each function
// enqueues one grid-stride kernel on `stream` and returns the launch's
// error; nothing waits. Pointers are device memory of `n` elements of
// `type` (a floating type; half and bfloat16 compute in float).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/gpu/element_type.h"

namespace tact::gpu {

// The functions of kernels/cpu/cwise_unary_ops.cc, with its definitions,
enum class UnaryOpKind {
  kNeg, kAbs, kSquare, kSign, kExp, kLog, kSqrt, kRsqrt, kTanh, kSigmoid,
  kRelu, kRelu6, kElu, kSoftplus,
  // and those of kernels/cpu/cwise_math_ops.cc (Round is Rint on floating types)
  kReciprocal, kSin, kCos, kTan, kAsin, kAcos, kAtan, kSinh, kCosh, kLog1p, kExpm1, kErf, kErfc,
  kFloor, kCeil, kRint, kSoftsign, kSelu,
};

// y[i] = op(x[i]).
cudaError_t LaunchUnary(UnaryOpKind op, ElementType type, const void* x, void* y, int64_t n,
                        cudaStream_t stream);

// The gradient ops of kernels/cpu/cwise_grad_ops.cc, in TensorFlow's
// argument order: (gradients, features) for ReluGrad, Relu6Grad and
// SoftplusGrad, (gradients, outputs) for EluGrad, (y, dy) for the others.
enum class UnaryGradKind {
  kReluGrad, kRelu6Grad, kEluGrad, kSoftplusGrad, kSigmoidGrad, kTanhGrad, kRsqrtGrad, kSqrtGrad,
};

// z[i] = op(a[i], b[i]) for the op's two same-shape inputs a and b.
cudaError_t LaunchUnaryGrad(UnaryGradKind op, ElementType type, const void* a, const void* b,
                            void* z, int64_t n, cudaStream_t stream);

}  // namespace tact::gpu

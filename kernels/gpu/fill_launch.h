// Tensors of one repeated value on the GPU: the CUDA side of fill_ops.cc
// (Fill, ZerosLike, OnesLike) and of the kernels that must write a constant
// (an empty reduction's identity). Enqueued on `stream`; nothing waits.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/gpu/element_type.h"

namespace tact::gpu {

// out[0..n) = *value, where `value` is one element of `type` in device
// memory (Fill's value input: read by the kernel, never copied to the host).
cudaError_t LaunchFillFromDevice(ElementType type, const void* value, void* out, int64_t n,
                                 cudaStream_t stream);
// out[0..n) = `value` converted to `type` (as static_cast; NaN and the
// infinities survive for the floating types; for bool, value != 0).
cudaError_t LaunchFillConstant(ElementType type, double value, void* out, int64_t n,
                               cudaStream_t stream);

}  // namespace tact::gpu

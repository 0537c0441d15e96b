// Cast on the GPU: the CUDA side of cast_ops.cc, between the element types
// a GPU device keeps in device memory (float, double, half, bfloat16,
// int64, bool). Enqueued on `stream`; nothing waits.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/gpu/element_type.h"

namespace tact::gpu {

// out[i] = in[i] converted from `src` to `dst` with the CPU kernel's
// rules (kernels/cpu/cast_op.cc): floating -> int64 truncates toward zero
// and saturates, NaN gives 0; anything -> bool is x != 0; half and
// bfloat16 convert through float, rounding to nearest even.
cudaError_t LaunchCast(ElementType src, ElementType dst, const void* in, void* out, int64_t n,
                       cudaStream_t stream);

}  // namespace tact::gpu

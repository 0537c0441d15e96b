// BiasAdd on the GPU: the CUDA side of bias_ops.cc (BiasAddGrad is a
// column sum: reduction_launch.h).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/gpu/element_type.h"

namespace tact::gpu {

// out[r, j] = value[r, j] + bias[j] for `rows` rows of `channels`; `type`
// is kFloat or kDouble. Enqueued on `stream`; nothing waits.
cudaError_t LaunchBiasAdd(ElementType type, const void* value, const void* bias, void* out,
                          int64_t rows, int64_t channels, cudaStream_t stream);

}  // namespace tact::gpu

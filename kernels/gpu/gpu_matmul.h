// C = A * B on the GPU with cuBLAS, for row-major float matrices in host
// memory (A is m x k, B is k x n, C is m x n). A first GPU path that tests
// and benchmarks can check against the CPU kernel before GPU devices and
// their allocators arrive with the runtime.
#pragma once

#include <cstdint>

#include "graph/status.h"

namespace tact::gpu {

// Unavailable when there is no GPU (or no driver); Internal, naming the
// failing CUDA or cuBLAS call, for any other failure. `millis`, if not null,
// receives the time of the sgemm alone (CUDA events), excluding copies.
Status MatMulHost(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k,
                  float* millis = nullptr);

}  // namespace tact::gpu

// Reductions on the GPU: the CUDA side of reduction_ops.cc (Sum, Mean, Max)
// and of BiasAddGrad. Every reduction is brought to [A, K, N] -> [A, N]
// (reduce the middle dimension of a row-major tensor), as on the CPU.
//
// Determinism: the order in which elements combine depends only on the
// shape (fixed block sizes, fixed chunking, fixed shared-memory trees),
// never on timing, so a step reproduces bit for bit on one GPU model.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/gpu/element_type.h"

namespace tact::gpu {

enum class ReduceKind { kSum, kMax };

// Elements of `type` that LaunchReduce needs in `scratch` for this shape
// (partial results of a long K split across blocks); often 0.
int64_t ReduceScratchElements(int64_t A, int64_t K, int64_t N);

// out[a, n] = reduce over k of in[a, k, n], divided by `divisor` (Mean's
// count; 1 for none). K >= 1. `type` is kFloat or kDouble; Max propagates
// NaN. `scratch` holds ReduceScratchElements(A, K, N) elements of `type`
// (may be null when that is 0). Enqueued on `stream`; nothing waits.
cudaError_t LaunchReduce(ReduceKind kind, ElementType type, const void* in, void* out, int64_t A,
                         int64_t K, int64_t N, int64_t divisor, void* scratch,
                         cudaStream_t stream);

}  // namespace tact::gpu

// Softmax, LogSoftmax and SparseSoftmaxCrossEntropyWithLogits on the GPU:
// the CUDA side of softmax_ops.cc. One block per row: the row's maximum,
// then the sum of exp(x - max), each by a fixed shared-memory tree, so
// large logits neither overflow nor lose the small terms and results do
// not depend on timing. `type` is kFloat or kDouble; enqueued on `stream`.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/gpu/element_type.h"

namespace tact::gpu {

// out = softmax(logits) (or log_softmax when `log`) over the last axis of
// [rows, classes]; classes >= 1.
cudaError_t LaunchSoftmax(ElementType type, const void* logits, void* out, int64_t rows,
                          int64_t classes, bool log, cudaStream_t stream);

// Per row r of [batch, classes] features with label l = labels[r] (int64
// when `labels_int64`, else int32, in device memory): loss[r] =
// log(sum exp(x)) - x[l], backprop[r] = softmax(x) - onehot(l). A label
// outside [0, classes) makes that row's loss and backprop NaN (TensorFlow's
// GPU behaviour: the kernel cannot fail the step without a wait).
cudaError_t LaunchSparseXent(ElementType type, const void* features, const void* labels,
                             bool labels_int64, void* loss, void* backprop, int64_t batch,
                             int64_t classes, cudaStream_t stream);

}  // namespace tact::gpu

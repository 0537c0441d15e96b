// The fused optimizer updates on the GPU: the CUDA side of training_ops.cc.
// Every pointer is device memory of `type` (kFloat or kDouble): the
// updated slots and the gradient hold `n` elements, the hyper-parameters
// one each and are read by the kernel, so a learning rate computed on the
// GPU never travels to the host. The formulas are the CPU kernels'
// (kernels/cpu/training_ops.cc). Enqueued on `stream`; nothing waits.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/gpu/element_type.h"

namespace tact::gpu {

// var -= alpha * delta
cudaError_t LaunchApplyGradientDescent(ElementType type, void* var, const void* alpha,
                                       const void* delta, int64_t n, cudaStream_t stream);

// accum = accum * momentum + grad; var -= lr * accum, or with Nesterov
// var -= lr * (grad + momentum * accum).
cudaError_t LaunchApplyMomentum(ElementType type, void* var, void* accum, const void* lr,
                                const void* grad, const void* momentum, bool nesterov, int64_t n,
                                cudaStream_t stream);

// ApplyAdam's scalar inputs, each one element in device memory.
struct AdamScalars {
  const void* beta1_power = nullptr;
  const void* beta2_power = nullptr;
  const void* lr = nullptr;
  const void* beta1 = nullptr;
  const void* beta2 = nullptr;
  const void* epsilon = nullptr;
};

// lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power);
// m += (grad - m) * (1 - beta1); v += (grad^2 - v) * (1 - beta2);
// var -= lr_t * m / (sqrt(v) + epsilon).
cudaError_t LaunchApplyAdam(ElementType type, void* var, void* m, void* v,
                            const AdamScalars& scalars, const void* grad, int64_t n,
                            cudaStream_t stream);

// ms += (grad^2 - ms) * (1 - rho);
// mom = mom * momentum + lr * grad / sqrt(ms + epsilon); var -= mom.
// The scalars lr, rho, momentum and epsilon, in that order.
cudaError_t LaunchApplyRMSProp(ElementType type, void* var, void* ms, void* mom,
                               const void* const scalars[4], const void* grad, int64_t n,
                               cudaStream_t stream);

// accum += grad^2 (if update_slots); var -= lr * grad / (sqrt(accum) + epsilon).
// ApplyAdagrad passes a null epsilon: none is added.
cudaError_t LaunchApplyAdagrad(ElementType type, void* var, void* accum, const void* lr,
                               const void* epsilon, const void* grad, bool update_slots,
                               int64_t n, cudaStream_t stream);

}  // namespace tact::gpu

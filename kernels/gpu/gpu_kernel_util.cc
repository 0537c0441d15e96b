#include "kernels/gpu/gpu_kernel_util.h"

namespace tact::gpu {

GpuDevice* KernelDevice(OpKernelContext* ctx) {
  GpuDevice* d = AsGpuDevice(ctx->device());
  if (d == nullptr) {
    ctx->CtxFailure(errors::Internal("a GPU kernel ran on ", ctx->device()->name()));
    return nullptr;
  }
  Status s = d->MakeCurrent();
  if (!s.ok()) {
    ctx->CtxFailure(s);
    return nullptr;
  }
  return d;
}

bool CudaOk(OpKernelContext* ctx, cudaError_t err, const char* what) {
  if (err == cudaSuccess) return true;
  ctx->CtxFailure(CudaStatus(err, what));
  return false;
}

}  // namespace tact::gpu

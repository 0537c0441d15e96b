// What every GPU kernel (an OpKernel registered for DEVICE_GPU) shares.
//
// The split of every GPU kernel: a .cu file holds the CUDA code behind
// plain launch functions over raw pointers and a stream (declared in a
// *_launch.h header that includes only CUDA's runtime API), and a .cc file
// holds the OpKernel, its checks and its registration. So nvcc never
// compiles the runtime's headers, and the kernels read like the CPU ones.
//
// A GPU kernel's Compute checks its inputs on the host, allocates its
// outputs (device memory, or host memory for KeptInHostMemory dtypes),
// enqueues its work on the device's compute stream and returns; it never
// waits for the GPU.
#pragma once

#include <cuda_runtime_api.h>

#include "devices/gpu/gpu_device.h"
#include "kernels/op_kernel.h"

namespace tact::gpu {

// The GPU device `ctx` runs on, made current on this thread; nullptr, with
// the kernel failed, when it is not a GPU device.
GpuDevice* KernelDevice(OpKernelContext* ctx);

// Fails `ctx` with `err` naming `what` (a launch or a library call);
// returns whether all was well.
bool CudaOk(OpKernelContext* ctx, cudaError_t err, const char* what);

}  // namespace tact::gpu

// GpuDevice: one CUDA device, named /device:GPU:N (paper 3: "devices are
// the computational heart of TensorFlow"; 5.4 for the streams).
//
// Kernels on a GPU device do not compute on the thread that runs them:
// they enqueue work on the device's compute stream and return. One stream
// orders every kernel of the device, so a kernel's inputs are ready when it
// is enqueued after their producers, and a buffer freed to the allocator
// may be handed to a later kernel at once (the stream runs that kernel
// after every earlier user of the buffer). The only waits are at the
// edges, where bytes cross to the host or to another device, and those
// run on copy streams of their own (host-to-device, device-to-host,
// device-to-device), ordered against the compute stream with CUDA events,
// never with a device-wide synchronisation: paper 5.4's "overlap
// computation and transfers".
//
// Memory: tensors of the device's kernels come from a BfcAllocator over
// cudaMalloc'ed regions, one per CUDA device for the whole process; dtypes
// kept in host memory (KeptInHostMemory) come from the process's pinned
// host memory, and the host side of kernels (shapes, sizes,
// int32 arithmetic) runs on the device's own host threads.
//
// Built only with CUDA (TACT_HAVE_CUDA). Include from GPU code only.
#pragma once

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "devices/device.h"
#include "devices/gpu/cublas_library.h"
#include "graph/status.h"
#include "graph/tensor.h"

namespace tact::gpu {

// int32 (shapes, sizes, indices: read by the host, as in TensorFlow),
// string and resource tensors of a GPU device live in host memory.
bool KeptInHostMemory(DataType dtype);

// Internal naming `what` ("cudaMemcpyAsync") and CUDA's message, or OK.
Status CudaStatus(cudaError_t err, const char* what);

struct GpuDeviceOptions {
  // Device memory the allocator may hold; 0 means 90% of what is free when
  // the device is created. The allocators belong to the process, one per
  // CUDA device, shared by every GpuDevice on it (sessions create devices
  // afresh; tensors may outlive them): the first device created for a CUDA
  // device sets its limit, and later ones share it.
  size_t memory_limit = 0;
  // Threads for the host side of kernels and for the executor's inter-op
  // scheduling.
  int host_threads = 2;
};

class GpuDevice final : public Device {
 public:
  // Unavailable when CUDA finds no device `ordinal`; FailedPrecondition
  // when cuBLAS cannot be opened (Cublas()); Internal naming the CUDA,
  // cuBLAS or cuDNN call that failed otherwise.
  static StatusOr<std::unique_ptr<GpuDevice>> Create(const std::string& name, int ordinal,
                                                     const GpuDeviceOptions& options);
  ~GpuDevice() override;

  int ordinal() const { return ordinal_; }

  // Device memory (BfcAllocator).
  Allocator* allocator() override;
  // Pinned host memory, for the dtypes kept on the host and for copies.
  Allocator* host_allocator();
  Allocator* allocator_for(DataType dtype) override;
  Eigen::ThreadPoolDevice* eigen_cpu_device() override;
  int num_threads() const override;
  void Schedule(std::function<void()> fn) override;

  cudaStream_t compute_stream() const { return compute_; }
  cudaStream_t host_to_device_stream() const { return h2d_; }
  cudaStream_t device_to_host_stream() const { return d2h_; }
  cudaStream_t device_to_device_stream() const { return d2d_; }
  // Both bound to the compute stream. cuBLAS's handle may serve several
  // host threads at once; cuDNN's may not ("as long as the threads do not
  // share the same cuDNN handle simultaneously"), and this device's kernels
  // run on several threads (the executor's inline continuations, the pool,
  // concurrent steps). So cudnn() holds the device's cuDNN lock until the
  // end of the full expression that asked for it:
  //   CudnnStatus(cudnnPoolingForward(device->cudnn(), ...), "...")
  // runs alone. Never ask twice in one expression.
  class LockedCudnn {
   public:
    LockedCudnn(std::mutex* mu, cudnnHandle_t handle) : lock_(*mu), handle_(handle) {}
    operator cudnnHandle_t() const { return handle_; }

   private:
    std::unique_lock<std::mutex> lock_;
    cudnnHandle_t handle_;
  };
  cublasHandle_t cublas() const { return cublas_; }
  // The functions to call with cublas() (devices/gpu/cublas_library.h).
  const CublasLibrary& cublas_library() const { return *cublas_library_; }
  LockedCudnn cudnn() const { return LockedCudnn(&cudnn_mu_, cudnn_); }

  // Makes this device current on the calling thread (CUDA's current device
  // is per thread, and kernels run on whichever thread the executor has).
  Status MakeCurrent() const;

  // Copies `src` (this device's memory) into a new pinned host tensor after
  // the work enqueued on the compute stream so far; `done` runs on one of
  // the device's host threads when the bytes are there. `src` is held until
  // then.
  void CopyDeviceToHost(const Tensor& src, std::function<void(const Status&, Tensor)> done);
  // Copies host tensor `src` into a new tensor in this device's memory.
  // Work enqueued on the compute stream after this returns sees the bytes
  // (the compute stream waits on the copy's event), so the caller may use
  // the result at once; `src` is held until the copy is over.
  StatusOr<Tensor> CopyHostToDevice(const Tensor& src);
  // Copies `src`, in another GPU device's memory, into this device's, on
  // this device's device-to-device stream, after the work enqueued on
  // `src_device`'s compute stream so far; ordered for this compute stream
  // like CopyHostToDevice.
  StatusOr<Tensor> CopyFromPeer(GpuDevice* src_device, const Tensor& src);
  // Device memory to device memory on the compute stream (Assign, Identity
  // into a variable).
  Status CopyOnDevice(const Tensor& src, Tensor* dst);

  // Blocks until everything enqueued on the compute stream is done. For
  // tests and benchmarks; never on a step's path.
  Status Synchronize();

 private:
  struct HostSide;
  GpuDevice(const std::string& name, int ordinal);

  // Makes `waiter` wait for the work enqueued on `producer` so far.
  Status Order(cudaStream_t producer, cudaStream_t waiter);
  // `s`, once the work enqueued on `stream` so far is done when `s` is an
  // error: the caller then drops buffers a copy there may still be using.
  Status Settled(cudaStream_t stream, Status s);
  // Runs `fn` on the device's copy-completion thread once the work
  // enqueued on `stream` so far is done. CUDA's host function only
  // enqueues it: there a thread may not call CUDA, nor wait for a lock a
  // thread inside CUDA holds.
  Status AfterCopy(cudaStream_t stream, std::function<void()> fn);
  // Holds `keep` until the work enqueued on `stream` so far is done.
  Status HoldUntilDone(cudaStream_t stream, Tensor keep);

  const int ordinal_;
  cudaStream_t compute_ = nullptr;
  cudaStream_t h2d_ = nullptr;
  cudaStream_t d2h_ = nullptr;
  cudaStream_t d2d_ = nullptr;
  const CublasLibrary* cublas_library_ = nullptr;  // the process's
  cublasHandle_t cublas_ = nullptr;
  cudnnHandle_t cudnn_ = nullptr;
  mutable std::mutex cudnn_mu_;
  Allocator* device_allocator_ = nullptr;  // the process's for this CUDA device; never freed
  Allocator* pinned_allocator_ = nullptr;  // the process's
  std::unique_ptr<HostSide> host_;
};

// The GPU device behind `device`, or nullptr for any other kind.
GpuDevice* AsGpuDevice(Device* device);
// The live GPU device whose memory holds `t`'s bytes, or nullptr when they
// are in host memory (or `t` has none). Devices on one CUDA device share
// its memory (one per session): `preferred`, the device whose kernels made
// `t`, is the answer when it is one of them, since copies must follow its
// compute stream.
GpuDevice* DeviceHolding(const Tensor& t, GpuDevice* preferred = nullptr);

}  // namespace tact::gpu

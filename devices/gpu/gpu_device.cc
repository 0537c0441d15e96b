#define EIGEN_USE_THREADS
#include "devices/gpu/gpu_device.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <unsupported/Eigen/CXX11/Tensor>
#include <vector>

#include "devices/bfc_allocator.h"
#include "devices/compute_pool.h"
#include "devices/device_factory.h"
#include "devices/serial_queue.h"

namespace tact::gpu {
namespace {

// Device memory in regions from cudaMalloc (slow, and it synchronises the
// device: hence a BfcAllocator over few large regions).
class CudaSubAllocator final : public SubAllocator {
 public:
  explicit CudaSubAllocator(int ordinal) : ordinal_(ordinal) {}
  void* Alloc(size_t bytes) override {
    void* p = nullptr;
    if (cudaSetDevice(ordinal_) != cudaSuccess || cudaMalloc(&p, bytes) != cudaSuccess) {
      cudaGetLastError();  // clear the sticky error of a failed allocation
      return nullptr;
    }
    return p;
  }
  void Free(void* ptr, size_t) override {
    cudaSetDevice(ordinal_);
    cudaFree(ptr);
  }

 private:
  const int ordinal_;
};

// Pinned host memory: copies from and to it run at the bus's speed and
// asynchronously, where pageable memory is staged by the driver.
class PinnedSubAllocator final : public SubAllocator {
 public:
  void* Alloc(size_t bytes) override {
    void* p = nullptr;
    if (cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) {
      cudaGetLastError();
      return nullptr;
    }
    return p;
  }
  void Free(void* ptr, size_t) override { cudaFreeHost(ptr); }
};

// Pinned memory is taken from the host's RAM and cannot be paged out; this
// much is enough for the transfers of a step, and beyond it copies fall
// back to pageable memory.
constexpr size_t kPinnedLimit = size_t{8} << 30;

size_t Bytes(const Tensor& t) { return t.TotalBytes(); }

// Runs a std::function posted to a stream with cudaLaunchHostFunc. The
// function must not call CUDA (CUDA's rule for host functions), so what
// follows a copy is only enqueued there (GpuDevice::AfterCopy).
void RunHostFunc(void* arg) {
  auto* fn = static_cast<std::function<void()>*>(arg);
  (*fn)();
  delete fn;
}

Status LaunchHostFunc(cudaStream_t stream, std::function<void()> fn) {
  auto* heap = new std::function<void()>(std::move(fn));
  Status s = CudaStatus(cudaLaunchHostFunc(stream, RunHostFunc, heap), "cudaLaunchHostFunc");
  if (!s.ok()) delete heap;
  return s;
}

// The allocators, one for each CUDA device's memory and one for pinned
// host memory, for the whole process (TensorFlow's GPUProcessState does the
// same). Every session creates its devices afresh, and an allocator per
// device would keep its regions after the device is gone (it must outlive
// the tensors it gave out, which may outlive the device), leaving the next
// device on that GPU less memory each time. Leaked on purpose, like the CPU
// device's allocator.
struct ProcessAllocators {
  std::mutex mu;
  std::map<int, Allocator*> device;  // by CUDA ordinal
  Allocator* pinned = nullptr;
};

ProcessAllocators& Allocators() {
  static auto* const kAllocators = new ProcessAllocators();
  return *kAllocators;
}

// The allocators for CUDA device `ordinal` (current on this thread),
// created with `memory_limit` (0: 90% of what is free now) the first time.
Status GetAllocators(int ordinal, size_t memory_limit, Allocator** device, Allocator** pinned) {
  ProcessAllocators& a = Allocators();
  std::lock_guard<std::mutex> lock(a.mu);
  Allocator*& mine = a.device[ordinal];
  if (mine == nullptr) {
    if (memory_limit == 0) {
      size_t free_bytes = 0, total = 0;
      TACT_RETURN_IF_ERROR(CudaStatus(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo"));
      memory_limit = free_bytes / 10 * 9;
    }
    BfcAllocator::Options options;
    options.memory_limit = memory_limit;
    options.initial_region_bytes = std::min<size_t>(memory_limit, size_t{256} << 20);
    mine = new BfcAllocator("gpu_" + std::to_string(ordinal), std::make_unique<CudaSubAllocator>(ordinal),
                            options);
  }
  if (a.pinned == nullptr) {
    BfcAllocator::Options options;
    options.memory_limit = kPinnedLimit;
    options.initial_region_bytes = size_t{16} << 20;
    a.pinned = new BfcAllocator("gpu_pinned_host", std::make_unique<PinnedSubAllocator>(), options);
  }
  *device = mine;
  *pinned = a.pinned;
  return Status::OK();
}

// Every live GPU device, to tell which one a tensor's bytes are on.
std::mutex& LiveMutex() {
  static std::mutex* const kMu = new std::mutex();
  return *kMu;
}
std::vector<GpuDevice*>& LiveDevices() {
  static auto* const kLive = new std::vector<GpuDevice*>();
  return *kLive;
}

}  // namespace

bool KeptInHostMemory(DataType dtype) {
  const DataType b = BaseType(dtype);
  return b == DT_INT32 || b == DT_STRING || b == DT_RESOURCE;
}

Status CudaStatus(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return Status::OK();
  return errors::Internal(what, " failed: ", cudaGetErrorString(err));
}

struct GpuDevice::HostSide {
  HostSide(int threads, int ordinal)
      : threads(threads < 1 ? 1 : threads),
        pool(this->threads),
        eigen(&pool, this->threads),
        inter_op(this->threads),
        after_copies("gpu" + std::to_string(ordinal) + " copies") {}
  int threads;
  ComputePool pool;
  Eigen::ThreadPoolDevice eigen;
  ComputePool inter_op;
  // What follows a copy, handed over by CUDA's host-function thread, which
  // may only enqueue (AfterCopy). Last: destroyed first, running what is
  // queued while the pools it schedules onto still exist.
  SerialQueue after_copies;
};

GpuDevice::GpuDevice(const std::string& name, int ordinal) : Device(name, DEVICE_GPU), ordinal_(ordinal) {}

StatusOr<std::unique_ptr<GpuDevice>> GpuDevice::Create(const std::string& name, int ordinal,
                                                       const GpuDeviceOptions& options) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    count = 0;
  }
  if (ordinal < 0 || ordinal >= count) {
    return errors::Unavailable("no CUDA device ", ordinal, " for '", name, "' (CUDA finds ", count, ")");
  }
  std::unique_ptr<GpuDevice> d(new GpuDevice(name, ordinal));
  TACT_RETURN_IF_ERROR(d->MakeCurrent());
  for (cudaStream_t* s : {&d->compute_, &d->h2d_, &d->d2h_, &d->d2d_}) {
    TACT_RETURN_IF_ERROR(
        CudaStatus(cudaStreamCreateWithFlags(s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags"));
  }
  TACT_ASSIGN_OR_RETURN(d->cublas_library_, Cublas());
  const CublasLibrary& cublas = *d->cublas_library_;
  if (cublas.create(&d->cublas_) != CUBLAS_STATUS_SUCCESS ||
      cublas.set_stream(d->cublas_, d->compute_) != CUBLAS_STATUS_SUCCESS) {
    return errors::Internal("cublasCreate for '", name, "' failed");
  }
  if (cudnnCreate(&d->cudnn_) != CUDNN_STATUS_SUCCESS ||
      cudnnSetStream(d->cudnn_, d->compute_) != CUDNN_STATUS_SUCCESS) {
    return errors::Internal("cudnnCreate for '", name, "' failed");
  }
  TACT_RETURN_IF_ERROR(
      GetAllocators(ordinal, options.memory_limit, &d->device_allocator_, &d->pinned_allocator_));
  d->host_ = std::make_unique<HostSide>(options.host_threads, ordinal);
  std::lock_guard<std::mutex> lock(LiveMutex());
  LiveDevices().push_back(d.get());
  return d;
}

GpuDevice::~GpuDevice() {
  {
    std::lock_guard<std::mutex> lock(LiveMutex());
    auto& live = LiveDevices();
    live.erase(std::remove(live.begin(), live.end(), this), live.end());
  }
  if (MakeCurrent().ok()) {
    for (cudaStream_t s : {compute_, h2d_, d2h_, d2d_}) {
      if (s != nullptr) cudaStreamSynchronize(s);
    }
  }
  // The host threads go first: a copy's continuation may still be queued.
  host_.reset();
  if (cudnn_ != nullptr) cudnnDestroy(cudnn_);
  if (cublas_ != nullptr) cublas_library_->destroy(cublas_);
  for (cudaStream_t s : {compute_, h2d_, d2h_, d2d_}) {
    if (s != nullptr) cudaStreamDestroy(s);
  }
}

Allocator* GpuDevice::allocator() { return device_allocator_; }
Allocator* GpuDevice::host_allocator() { return pinned_allocator_; }
Allocator* GpuDevice::allocator_for(DataType dtype) {
  return KeptInHostMemory(dtype) ? pinned_allocator_ : device_allocator_;
}
Eigen::ThreadPoolDevice* GpuDevice::eigen_cpu_device() { return &host_->eigen; }
int GpuDevice::num_threads() const { return host_->threads; }
void GpuDevice::Schedule(std::function<void()> fn) { host_->inter_op.Schedule(std::move(fn)); }

Status GpuDevice::MakeCurrent() const { return CudaStatus(cudaSetDevice(ordinal_), "cudaSetDevice"); }

Status GpuDevice::Order(cudaStream_t producer, cudaStream_t waiter) {
  cudaEvent_t e = nullptr;
  TACT_RETURN_IF_ERROR(CudaStatus(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate"));
  Status s = CudaStatus(cudaEventRecord(e, producer), "cudaEventRecord");
  if (s.ok()) s = CudaStatus(cudaStreamWaitEvent(waiter, e, 0), "cudaStreamWaitEvent");
  cudaEventDestroy(e);  // released by CUDA once the wait is satisfied
  return s;
}

Status GpuDevice::Settled(cudaStream_t stream, Status s) {
  // On failure the caller releases the copy's buffers at once, while the
  // copy may still be running: it must finish first. (Only on an error
  // path; never on a step's.)
  if (!s.ok()) cudaStreamSynchronize(stream);
  return s;
}

Status GpuDevice::AfterCopy(cudaStream_t stream, std::function<void()> fn) {
  SerialQueue* queue = &host_->after_copies;
  return LaunchHostFunc(stream, [queue, fn = std::move(fn)]() mutable { queue->Push(std::move(fn)); });
}

Status GpuDevice::HoldUntilDone(cudaStream_t stream, Tensor keep) {
  // Released off CUDA's thread: the free takes the allocator's lock, which
  // a thread growing the allocator holds across cudaMalloc.
  return AfterCopy(stream, [keep = std::move(keep)]() mutable { keep = Tensor(); });
}

void GpuDevice::CopyDeviceToHost(const Tensor& src, std::function<void(const Status&, Tensor)> done) {
  Status s = MakeCurrent();
  StatusOr<Tensor> dst = Tensor::Allocate(pinned_allocator_, src.dtype(), src.shape());
  if (!dst.ok()) dst = Tensor::Allocate(CpuAllocator(), src.dtype(), src.shape());
  if (s.ok()) s = dst.status();
  const size_t bytes = Bytes(src);
  if (s.ok() && bytes == 0) {
    done(Status::OK(), std::move(dst).value());
    return;
  }
  // The copy reads what the compute stream's kernels so far write.
  if (s.ok()) s = Order(compute_, d2h_);
  if (s.ok()) {
    s = CudaStatus(cudaMemcpyAsync(dst->raw_data(), src.raw_data(), bytes, cudaMemcpyDeviceToHost, d2h_),
                   "cudaMemcpyAsync (device to host)");
  }
  if (s.ok()) {
    s = AfterCopy(d2h_, [this, src, host = *dst, done]() mutable {
      Schedule([src = std::move(src), host = std::move(host), done = std::move(done)]() mutable {
        src = Tensor();
        done(Status::OK(), std::move(host));
      });
    });
  }
  if (!s.ok()) {
    done(Settled(d2h_, s).WithPrefix("copying a tensor from " + name() + " to the host: "), Tensor());
  }
}

StatusOr<Tensor> GpuDevice::CopyHostToDevice(const Tensor& src) {
  TACT_RETURN_IF_ERROR(MakeCurrent());
  TACT_ASSIGN_OR_RETURN(Tensor dst, Tensor::Allocate(device_allocator_, src.dtype(), src.shape()));
  const size_t bytes = Bytes(src);
  if (bytes == 0) return dst;
  // `dst` may be a buffer that kernels still queued on the compute stream
  // freed: the copy must not start before them (TensorFlow orders its
  // host-to-device stream the same way).
  TACT_RETURN_IF_ERROR(Order(compute_, h2d_));
  TACT_RETURN_IF_ERROR(
      CudaStatus(cudaMemcpyAsync(dst.raw_data(), src.raw_data(), bytes, cudaMemcpyHostToDevice, h2d_),
                 "cudaMemcpyAsync (host to device)"));
  TACT_RETURN_IF_ERROR(Settled(h2d_, HoldUntilDone(h2d_, src)));
  TACT_RETURN_IF_ERROR(Settled(h2d_, Order(h2d_, compute_)));
  return dst;
}

StatusOr<Tensor> GpuDevice::CopyFromPeer(GpuDevice* src_device, const Tensor& src) {
  TACT_RETURN_IF_ERROR(MakeCurrent());
  TACT_ASSIGN_OR_RETURN(Tensor dst, Tensor::Allocate(device_allocator_, src.dtype(), src.shape()));
  const size_t bytes = Bytes(src);
  if (bytes == 0) return dst;
  TACT_RETURN_IF_ERROR(Order(compute_, d2d_));
  // Events order streams of different devices too.
  TACT_RETURN_IF_ERROR(src_device->MakeCurrent());
  cudaEvent_t produced = nullptr;
  TACT_RETURN_IF_ERROR(
      CudaStatus(cudaEventCreateWithFlags(&produced, cudaEventDisableTiming), "cudaEventCreate"));
  Status s = CudaStatus(cudaEventRecord(produced, src_device->compute_stream()), "cudaEventRecord");
  TACT_RETURN_IF_ERROR(MakeCurrent());
  if (s.ok()) s = CudaStatus(cudaStreamWaitEvent(d2d_, produced, 0), "cudaStreamWaitEvent");
  cudaEventDestroy(produced);
  TACT_RETURN_IF_ERROR(s);
  TACT_RETURN_IF_ERROR(CudaStatus(
      cudaMemcpyPeerAsync(dst.raw_data(), ordinal_, src.raw_data(), src_device->ordinal(), bytes, d2d_),
      "cudaMemcpyPeerAsync"));
  TACT_RETURN_IF_ERROR(Settled(d2d_, HoldUntilDone(d2d_, src)));
  TACT_RETURN_IF_ERROR(Settled(d2d_, Order(d2d_, compute_)));
  return dst;
}

Status GpuDevice::CopyOnDevice(const Tensor& src, Tensor* dst) {
  const size_t bytes = Bytes(src);
  if (Bytes(*dst) != bytes) {
    return errors::Internal("device copy of ", bytes, " bytes into a tensor of ", Bytes(*dst));
  }
  if (bytes == 0) return Status::OK();
  TACT_RETURN_IF_ERROR(MakeCurrent());
  return CudaStatus(
      cudaMemcpyAsync(dst->raw_data(), src.raw_data(), bytes, cudaMemcpyDeviceToDevice, compute_),
      "cudaMemcpyAsync (device to device)");
}

Status GpuDevice::Synchronize() {
  TACT_RETURN_IF_ERROR(MakeCurrent());
  return CudaStatus(cudaStreamSynchronize(compute_), "cudaStreamSynchronize");
}

GpuDevice* AsGpuDevice(Device* device) {
  return device != nullptr && device->device_type() == DEVICE_GPU ? static_cast<GpuDevice*>(device) : nullptr;
}

GpuDevice* DeviceHolding(const Tensor& t, GpuDevice* preferred) {
  if (t.buffer() == nullptr || t.buffer()->allocator() == nullptr) return nullptr;
  if (preferred != nullptr && t.buffer()->allocator() == preferred->allocator()) return preferred;
  std::lock_guard<std::mutex> lock(LiveMutex());
  for (GpuDevice* d : LiveDevices()) {
    if (t.buffer()->allocator() == d->allocator()) return d;
  }
  return nullptr;
}

namespace {

// GPU devices exist only where CUDA finds them: asking for more than there
// are is Unavailable, naming both counts; asking for none is fine anywhere.
class GpuDeviceFactory final : public DeviceFactory {
 public:
  StatusOr<std::vector<std::unique_ptr<Device>>> CreateDevices(const std::string& task_prefix, int count,
                                                               int threads) override {
    std::vector<std::unique_ptr<Device>> out;
    if (count == 0) return out;
    int found = 0;
    if (cudaGetDeviceCount(&found) != cudaSuccess) {
      cudaGetLastError();
      found = 0;
    }
    if (count > found) {
      return errors::Unavailable("asked for ", count, " GPU device(s); CUDA finds ", found,
                                 " on this machine");
    }
    GpuDeviceOptions options;
    options.host_threads = threads;
    for (int i = 0; i < count; ++i) {
      TACT_ASSIGN_OR_RETURN(std::unique_ptr<GpuDevice> d,
                            GpuDevice::Create(task_prefix + "/device:GPU:" + std::to_string(i), i, options));
      out.push_back(std::move(d));
    }
    return out;
  }
};

const bool kGpuFactoryRegistered = [] {
  RegisterDeviceFactory(DEVICE_GPU, std::make_unique<GpuDeviceFactory>());
  return true;
}();

}  // namespace
}  // namespace tact::gpu

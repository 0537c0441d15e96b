#define EIGEN_USE_THREADS
#include <unsupported/Eigen/CXX11/Tensor>

#include "devices/compute_pool.h"
#include "devices/device.h"

namespace tact {
namespace {

class CpuDevice final : public Device {
 public:
  CpuDevice(const std::string& name, int num_threads, Allocator* allocator)
      : Device(name, DEVICE_CPU),
        own_allocator_(allocator ? nullptr : NewCpuAllocator()),
        allocator_(allocator ? allocator : own_allocator_.get()),
        num_threads_(num_threads < 1 ? 1 : num_threads),
        pool_(num_threads_),
        eigen_(&pool_, num_threads_),
        inter_op_(num_threads_) {}

  Allocator* allocator() override { return allocator_; }
  Eigen::ThreadPoolDevice* eigen_cpu_device() override { return &eigen_; }
  int num_threads() const override { return num_threads_; }
  void Schedule(std::function<void()> fn) override { inter_op_.Schedule(std::move(fn)); }

 private:
  // First, so that it is let go last, after the pools whose threads
  // allocate. A tensor fetched from the device may outlive it: the
  // allocator lives on until that tensor is gone (Allocator::Release).
  std::unique_ptr<Allocator, Allocator::Release> own_allocator_;
  Allocator* allocator_;
  int num_threads_;
  ComputePool pool_;
  Eigen::ThreadPoolDevice eigen_;
  ComputePool inter_op_;
};

}  // namespace

std::unique_ptr<Device> NewCpuDevice(const std::string& name, int num_threads,
                                     Allocator* allocator) {
  return std::make_unique<CpuDevice>(name, num_threads, allocator);
}

}  // namespace tact

#include "devices/device_factory.h"

namespace tact {
namespace {

class CpuDeviceFactory final : public DeviceFactory {
 public:
  StatusOr<std::vector<std::unique_ptr<Device>>> CreateDevices(const std::string& task_prefix,
                                                               int count, int threads) override {
    std::vector<std::unique_ptr<Device>> out;
    for (int i = 0; i < count; ++i) {
      out.push_back(NewCpuDevice(task_prefix + "/device:CPU:" + std::to_string(i), threads));
    }
    return out;
  }
};

const bool kCpuFactoryRegistered = [] {
  RegisterDeviceFactory(DEVICE_CPU, std::make_unique<CpuDeviceFactory>());
  return true;
}();

}  // namespace
}  // namespace tact

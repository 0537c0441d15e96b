#define EIGEN_USE_THREADS
#include <unsupported/Eigen/CXX11/Tensor>

#include "devices/device.h"

namespace tact {
namespace {

class CpuDevice final : public Device {
 public:
  CpuDevice(const std::string& name, int num_threads, Allocator* allocator)
      : Device(name, DEVICE_CPU),
        allocator_(allocator),
        num_threads_(num_threads < 1 ? 1 : num_threads),
        pool_(num_threads_),
        eigen_(&pool_, num_threads_) {}

  Allocator* allocator() override { return allocator_; }
  Eigen::ThreadPoolDevice* eigen_cpu_device() override { return &eigen_; }
  int num_threads() const override { return num_threads_; }

 private:
  Allocator* allocator_;
  int num_threads_;
  Eigen::ThreadPool pool_;
  Eigen::ThreadPoolDevice eigen_;
};

}  // namespace

std::unique_ptr<Device> NewCpuDevice(const std::string& name, int num_threads,
                                     Allocator* allocator) {
  return std::make_unique<CpuDevice>(name, num_threads, allocator);
}

}  // namespace tact

// Device: a place where kernels run (paper 3: "each worker is responsible
// for one or more devices"). It owns the allocator for tensors it produces
// and, for CPU devices, the Eigen thread pool that compute runs on.
//
// Eigen stays out of this header: kernels that need the Eigen device include
// devices/eigen_device.h.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "graph/allocator.h"
#include "graph/types.h"

namespace Eigen {
struct ThreadPoolDevice;
}  // namespace Eigen

namespace tact {

// Device types as kernels are registered for them.
inline constexpr const char* DEVICE_CPU = "CPU";
inline constexpr const char* DEVICE_GPU = "GPU";

class Device {
 public:
  virtual ~Device() = default;
  // Full name, e.g. "/job:localhost/replica:0/task:0/device:CPU:0".
  const std::string& name() const { return name_; }
  const std::string& device_type() const { return type_; }
  virtual Allocator* allocator() = 0;
  // Where a kernel's output or scratch tensor of `dtype` lives: allocator(),
  // except for the dtypes a device keeps in host memory (a GPU device keeps
  // int32 shapes and indices, strings and resources on the host, as
  // TensorFlow does, so that the host side of its kernels reads them).
  virtual Allocator* allocator_for(DataType /*dtype*/) { return allocator(); }
  // The Eigen device that CPU kernels evaluate expressions on; nullptr for
  // devices that have none.
  virtual Eigen::ThreadPoolDevice* eigen_cpu_device() { return nullptr; }
  // Threads in the compute pool (1 if none).
  virtual int num_threads() const { return 1; }
  // Runs `fn` on one of the device's inter-op threads: the executor hands
  // expensive kernels here. A separate pool from the one Eigen kernels split
  // their work over, so a kernel waiting on its parallelFor blocks can never
  // starve the blocks it waits for. The default runs `fn` inline.
  virtual void Schedule(std::function<void()> fn) { fn(); }

 protected:
  Device(std::string name, std::string type) : name_(std::move(name)), type_(std::move(type)) {}

 private:
  std::string name_;
  std::string type_;
};

// A CPU device with its own Eigen thread pools: `num_threads` threads for
// kernels' intra-op work and as many for scheduling kernels (inter-op), and
// its own host allocator (so its counters are its own) unless `allocator`
// is given (which must then outlive the device and its tensors).
std::unique_ptr<Device> NewCpuDevice(const std::string& name, int num_threads,
                                     Allocator* allocator = nullptr);

}  // namespace tact

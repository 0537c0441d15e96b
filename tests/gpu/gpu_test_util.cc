#include "tests/gpu/gpu_test_util.h"

#include <condition_variable>
#include <memory>
#include <mutex>

#include "kernels/gpu/gpu_info.h"
#include "tests/kernels/kernel_test_util.h"

namespace tact::test {

gpu::GpuDevice* GpuTestDevice() {
  static gpu::GpuDevice* const kDevice = []() -> gpu::GpuDevice* {
    if (gpu::DeviceCount() == 0) return nullptr;
    auto d = gpu::GpuDevice::Create("/job:localhost/replica:0/task:0/device:GPU:0", 0, {});
    if (!d.ok()) {
      ADD_FAILURE() << "a CUDA device is present but the GPU device failed: " << d.status().ToString();
      return nullptr;
    }
    return d->release();  // lives until exit, like the test CPU devices
  }();
  return kDevice;
}

StatusOr<std::vector<Tensor>> RunOpOnGpu(const std::string& op, const std::vector<Tensor>& inputs,
                                         AttrMap attrs) {
  gpu::GpuDevice* device = GpuTestDevice();
  if (device == nullptr) return errors::Unavailable("no CUDA device");
  TACT_RETURN_IF_ERROR(device->MakeCurrent());
  std::vector<Tensor> on_device;
  for (const Tensor& t : inputs) {
    if (gpu::KeptInHostMemory(t.dtype())) {
      on_device.push_back(t);
    } else {
      TACT_ASSIGN_OR_RETURN(Tensor d, device->CopyHostToDevice(t));
      on_device.push_back(std::move(d));
    }
  }
  TACT_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, RunOpOn(device, op, on_device, std::move(attrs)));
  TACT_RETURN_IF_ERROR(device->Synchronize());
  std::vector<Tensor> host;
  for (const Tensor& t : outputs) {
    if (gpu::KeptInHostMemory(t.dtype())) {
      host.push_back(t);
      continue;
    }
    Status status;
    Tensor copy;
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    device->CopyDeviceToHost(t, [&](const Status& s, Tensor h) {
      std::lock_guard<std::mutex> lock(mu);
      status = s;
      copy = std::move(h);
      done = true;
      cv.notify_all();
    });
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return done; });
    TACT_RETURN_IF_ERROR(status);
    host.push_back(std::move(copy));
  }
  return host;
}

void ExpectGpuMatchesCpu(const std::string& op, const std::vector<Tensor>& inputs, AttrMap attrs, double rtol,
                         double atol) {
  StatusOr<std::vector<Tensor>> cpu = RunOp(op, inputs, attrs);
  ASSERT_TRUE(cpu.ok()) << cpu.status().ToString();
  StatusOr<std::vector<Tensor>> gpu = RunOpOnGpu(op, inputs, attrs);
  ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();
  ASSERT_EQ(cpu->size(), gpu->size());
  for (size_t i = 0; i < cpu->size(); ++i) {
    SCOPED_TRACE(op + " output " + std::to_string(i));
    ASSERT_EQ((*gpu)[i].dtype(), (*cpu)[i].dtype());
    ExpectClose((*gpu)[i], (*cpu)[i].shape(), ToDoubles((*cpu)[i]), rtol, atol);
  }
}

}  // namespace tact::test

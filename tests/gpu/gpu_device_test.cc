// The GPU device: what every machine can check (the factory, the memory
// rules, the kernels registered) and, with a CUDA device, the device's
// copies between host and device memory.
#include <gtest/gtest.h>

#include <condition_variable>
#include <cstring>
#include <mutex>

#include "devices/device_factory.h"
#include "kernels/gpu/gpu_info.h"
#include "kernels/kernel_registry.h"
#include "tests/gpu/gpu_test_util.h"
#include "tests/kernels/kernel_test_util.h"

namespace tact {
namespace {

TEST(GpuDeviceFactoryTest, NoGpusAskedIsFineEverywhere) {
  auto devices = CreateDevices({{"CPU", 1}, {"GPU", 0}}, "/job:localhost/replica:0/task:0", 1);
  ASSERT_TRUE(devices.ok()) << devices.status().ToString();
  ASSERT_EQ(devices->size(), 1u);
  EXPECT_EQ((*devices)[0]->device_type(), "CPU");
}

TEST(GpuDeviceFactoryTest, MoreGpusThanTheMachineHasIsUnavailableNamingTheCounts) {
  const int found = gpu::DeviceCount();
  auto devices = CreateDevices({{"gpu", found + 1}}, "/job:localhost/replica:0/task:0", 1);
  ASSERT_FALSE(devices.ok());
  test::ExpectError(devices.status(), Code::kUnavailable, "CUDA finds " + std::to_string(found));
}

TEST(GpuDeviceFactoryTest, DevicesAreNamedByOrdinal) {
  TACT_REQUIRE_GPU();
  auto devices = CreateDevices({{"GPU", 1}}, "/job:w/replica:0/task:3", 1);
  ASSERT_TRUE(devices.ok()) << devices.status().ToString();
  EXPECT_EQ((*devices)[0]->name(), "/job:w/replica:0/task:3/device:GPU:0");
  EXPECT_EQ((*devices)[0]->device_type(), "GPU");
}

TEST(GpuDeviceTest, WithoutADeviceCreateIsUnavailable) {
  if (gpu::DeviceCount() > 0) GTEST_SKIP() << "a GPU is present";
  auto d = gpu::GpuDevice::Create("/device:GPU:0", 0, {});
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), Code::kUnavailable) << d.status().ToString();
}

TEST(GpuDeviceTest, Int32StringsAndResourcesLiveOnTheHost) {
  EXPECT_TRUE(gpu::KeptInHostMemory(DT_INT32));
  EXPECT_TRUE(gpu::KeptInHostMemory(DT_STRING));
  EXPECT_TRUE(gpu::KeptInHostMemory(DT_RESOURCE));
  EXPECT_TRUE(gpu::KeptInHostMemory(MakeRefType(DT_INT32)));
  EXPECT_FALSE(gpu::KeptInHostMemory(DT_FLOAT));
  EXPECT_FALSE(gpu::KeptInHostMemory(DT_INT64));
  EXPECT_FALSE(gpu::KeptInHostMemory(DT_BOOL));
}

Tensor ToHost(gpu::GpuDevice* d, const Tensor& t) {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  Tensor out;
  d->CopyDeviceToHost(t, [&](const Status& s, Tensor h) {
    EXPECT_TRUE(s.ok()) << s.ToString();
    std::lock_guard<std::mutex> lock(mu);
    out = std::move(h);
    done = true;
    cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return done; });
  return out;
}

TEST(GpuDeviceTest, BytesRoundTripThroughDeviceMemory) {
  TACT_REQUIRE_GPU();
  gpu::GpuDevice* d = test::GpuTestDevice();
  for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{1000}, int64_t{1} << 24}) {
    Tensor host = test::Random<float>(TensorShape({n}), static_cast<uint32_t>(n));
    StatusOr<Tensor> dev = d->CopyHostToDevice(host);
    ASSERT_TRUE(dev.ok()) << dev.status().ToString();
    EXPECT_EQ(gpu::DeviceHolding(*dev), d);
    EXPECT_EQ(gpu::DeviceHolding(host), nullptr);
    Tensor back = ToHost(d, *dev);
    ASSERT_EQ(back.shape(), host.shape());
    EXPECT_EQ(0, std::memcmp(back.raw_data(), host.raw_data(), host.TotalBytes())) << n;
  }
}

TEST(GpuDeviceTest, AKernelsOutputComesFromTheDevicesAllocator) {
  TACT_REQUIRE_GPU();
  gpu::GpuDevice* d = test::GpuTestDevice();
  const int64_t before = d->allocator()->GetStats().num_allocs;
  auto out = test::RunOpOnGpu("MatMul", {test::Random<float>({64, 32}, 1), test::Random<float>({32, 16}, 2)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_GT(d->allocator()->GetStats().num_allocs, before);
  EXPECT_GT(d->allocator()->GetStats().peak_bytes_in_use, 0);
}

// Sessions create their devices afresh; the memory of a CUDA device is the
// process's, shared by them all, so the tenth session's device has what the
// first had, and a tensor made by one device is found on it, not on a
// twin of another session.
TEST(GpuDeviceTest, DevicesOnOneGpuShareTheProcesssAllocators) {
  TACT_REQUIRE_GPU();
  auto first = gpu::GpuDevice::Create("/job:a/replica:0/task:0/device:GPU:0", 0, {});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  Allocator* memory = (*first)->allocator();
  Allocator* pinned = (*first)->host_allocator();
  for (int i = 0; i < 10; ++i) {
    auto twin = gpu::GpuDevice::Create("/job:b/replica:0/task:0/device:GPU:0", 0, {});
    ASSERT_TRUE(twin.ok()) << twin.status().ToString();
    EXPECT_EQ((*twin)->allocator(), memory);
    EXPECT_EQ((*twin)->host_allocator(), pinned);
    StatusOr<Tensor> t = (*twin)->CopyHostToDevice(test::Random<float>(TensorShape({1000}), 1));
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    EXPECT_EQ(gpu::DeviceHolding(*t, twin->get()), twin->get());
    EXPECT_EQ(gpu::DeviceHolding(*t, first->get()), first->get());
    ASSERT_TRUE((*twin)->Synchronize().ok());
  }
}

// The kernels issue 20 asks for exist for the GPU on every machine that
// builds CUDA, whether or not it has a device to run them.
TEST(GpuKernelRegistryTest, TheTrainingOpsHaveGpuKernels) {
  for (const char* op : {"MatMul", "BatchMatMul", "Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter",
                         "MaxPool", "AvgPool", "MaxPoolGrad", "AvgPoolGrad", "_Send", "_Recv", "Const",
                         "Identity", "Variable", "Assign", "Reshape", "Shape"}) {
    bool found = false;
    for (const KernelDef* k : KernelRegistry::Global()->KernelsFor(op))
      found = found || k->device_type == "GPU";
    EXPECT_TRUE(found) << op << " has no GPU kernel";
  }
}

}  // namespace
}  // namespace tact

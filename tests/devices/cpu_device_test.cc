#include <gtest/gtest.h>

#include "devices/device.h"
#include "graph/tensor.h"

namespace tact {
namespace {

TEST(CpuDeviceTest, HasTypeThreadsAndAllocator) {
  auto d = NewCpuDevice("/job:localhost/replica:0/task:0/device:CPU:0", 3);
  EXPECT_EQ(d->device_type(), "CPU");
  EXPECT_EQ(d->num_threads(), 3);
  EXPECT_NE(d->eigen_cpu_device(), nullptr);
  Tensor t(d->allocator(), DT_FLOAT, {4});
  EXPECT_GE(d->allocator()->GetStats().bytes_in_use, 16);
}

// A tensor fetched from a session outlives the session's devices: its bytes
// stay valid, and go back to the device's allocator when it goes (which
// then goes too: run under AddressSanitizer, this test shows neither a use
// after free nor a leak).
TEST(CpuDeviceTest, ATensorOutlivesItsDevice) {
  auto d = NewCpuDevice("/job:localhost/replica:0/task:0/device:CPU:0", 2);
  Tensor t(d->allocator(), DT_FLOAT, {256});
  for (int i = 0; i < 256; ++i) t.data<float>()[i] = static_cast<float>(i);
  d.reset();
  for (int i = 0; i < 256; ++i) ASSERT_EQ(t.data<float>()[i], static_cast<float>(i));
  t = Tensor();
}

}  // namespace
}  // namespace tact

#include "devices/device_factory.h"
#include "devices/device_name.h"

namespace tact {
namespace {

TEST(DeviceFactoryTest, FourCpuDevicesInOneProcess) {
  auto devices = CreateDevices({{"cpu", 4}}, "/job:localhost/replica:0/task:0", 1);
  ASSERT_TRUE(devices.ok()) << devices.status().ToString();
  ASSERT_EQ(devices->size(), 4u);
  for (int i = 0; i < 4; ++i) {
    const Device& d = *(*devices)[i];
    EXPECT_EQ(d.name(), "/job:localhost/replica:0/task:0/device:CPU:" + std::to_string(i));
    auto parsed = DeviceName::Parse(d.name());
    ASSERT_TRUE(parsed.ok());
    EXPECT_TRUE(parsed->IsFullySpecified());
  }
  // Each device counts its own bytes.
  Tensor t((*devices)[1]->allocator(), DT_FLOAT, {1000});
  EXPECT_EQ((*devices)[1]->allocator()->GetStats().bytes_in_use, 4000);
  EXPECT_EQ((*devices)[2]->allocator()->GetStats().bytes_in_use, 0);
}

TEST(DeviceFactoryTest, UnknownTypesAndBadCountsAreErrors) {
  auto tpu = CreateDevices({{"tpu", 1}}, "/job:localhost/replica:0/task:0", 1);
  EXPECT_EQ(tpu.status().code(), Code::kNotFound);
  EXPECT_NE(tpu.status().message().find("no device factory for type 'tpu' (known: CPU"), std::string::npos)
      << tpu.status().message();
  EXPECT_EQ(CreateDevices({{"cpu", -1}}, "/job:a", 1).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(CreateDevices({{"cpu", 1}}, "/job:a", 0).status().code(), Code::kInvalidArgument);
}

// Past the limit the process would run out of threads midway (`tact train
// --threads 100000` aborted with std::system_error).
TEST(DeviceFactoryTest, MoreComputeThreadsThanTheLimitAreRefusedNamingTheCounts) {
  auto many = CreateDevices({{"cpu", 3}}, "/job:a", 4000);
  EXPECT_EQ(many.status().code(), Code::kInvalidArgument);
  EXPECT_NE(many.status().message().find("3 devices with 4000 compute threads each would start 12000 threads; "
                                         "at most 8192"),
            std::string::npos)
      << many.status().message();
  EXPECT_EQ(CreateDevices({{"cpu", 100000}}, "/job:a", 1).status().code(), Code::kInvalidArgument);
  auto at_limit = CreateDevices({{"cpu", 2}}, "/job:a", kMaxComputeThreads / 2 / 64);
  ASSERT_TRUE(at_limit.ok()) << at_limit.status().ToString();
  EXPECT_EQ(at_limit->size(), 2u);
}

TEST(DeviceFactoryTest, DeviceCountsFromACommandLine) {
  using Counts = std::map<std::string, int>;
  EXPECT_EQ(*ParseDeviceCounts("3"), (Counts{{"CPU", 3}}));
  EXPECT_EQ(*ParseDeviceCounts("cpu:1,gpu:2"), (Counts{{"CPU", 1}, {"GPU", 2}}));
  EXPECT_EQ(*ParseDeviceCounts("GPU:0"), (Counts{{"GPU", 0}}));
  for (const char* bad :
       {"", "x", "-1", "2x", "cpu:", ":1", "cpu:1,", "cpu:1,cpu:2", "cpu:1;gpu:1", "gpu:-1"}) {
    auto c = ParseDeviceCounts(bad);
    EXPECT_EQ(c.status().code(), Code::kInvalidArgument) << bad;
    EXPECT_NE(c.status().message().find(std::string("'") + bad + "'"), std::string::npos)
        << c.status().message();
  }
}

}  // namespace
}  // namespace tact

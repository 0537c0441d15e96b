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

}  // namespace
}  // namespace tact

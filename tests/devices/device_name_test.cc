#include "devices/device_name.h"

#include <gtest/gtest.h>

namespace tact {
namespace {

TEST(DeviceNameTest, ParsesAndFormatsFullNames) {
  auto n = DeviceName::Parse("/job:worker/replica:0/task:1/device:cpu:3");
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_TRUE(n->IsFullySpecified());
  EXPECT_EQ(n->job, "worker");
  EXPECT_EQ(n->task, 1);
  EXPECT_EQ(n->type, "CPU");
  EXPECT_EQ(n->id, 3);
  EXPECT_EQ(n->ToString(), "/job:worker/replica:0/task:1/device:CPU:3");
  EXPECT_EQ(DeviceName::Full("ps", 0, 2, "gpu", 0).ToString(), "/job:ps/replica:0/task:2/device:GPU:0");
}

TEST(DeviceNameTest, PartialSpecsMatchTheDevicesTheyAllow) {
  auto full = *DeviceName::Parse("/job:worker/replica:0/task:1/device:CPU:0");
  auto gpu = *DeviceName::Parse("/job:worker/replica:0/task:1/device:GPU:0");
  auto any_cpu = *DeviceName::Parse("/device:cpu:*");
  auto task1 = *DeviceName::Parse("/job:worker/task:1");
  auto task2 = *DeviceName::Parse("/job:worker/task:2");
  auto short_gpu = *DeviceName::Parse("/gpu:0");
  auto anything = *DeviceName::Parse("");
  EXPECT_FALSE(any_cpu.IsFullySpecified());
  EXPECT_EQ(any_cpu.ToString(), "/device:CPU:*");
  EXPECT_TRUE(any_cpu.Matches(full));
  EXPECT_FALSE(any_cpu.Matches(gpu));
  EXPECT_TRUE(task1.Matches(full));
  EXPECT_TRUE(task1.Matches(gpu));
  EXPECT_FALSE(task2.Matches(full));
  EXPECT_TRUE(short_gpu.Matches(gpu));
  EXPECT_FALSE(short_gpu.Matches(full));
  EXPECT_TRUE(anything.Matches(full));
}

TEST(DeviceNameTest, MalformedNamesNameThePart) {
  const char* bad[] = {"job:worker", "/job:", "/job:1abc", "/task:x", "/replica:-1",
                       "/device:", "/device:cpu:x", "/foo:1", "/job:a/job:b", "/task:1/task:2",
                       "/device:cpu:0/gpu:1", "/job:w//task:1"};
  for (const char* name : bad) {
    auto n = DeviceName::Parse(name);
    EXPECT_EQ(n.status().code(), Code::kInvalidArgument) << name;
    EXPECT_NE(n.status().message().find("malformed device name"), std::string::npos) << name;
  }
  auto n = DeviceName::Parse("/job:worker/task:x");
  EXPECT_NE(n.status().message().find("bad part 'task:x'"), std::string::npos) << n.status().message();
}

TEST(DeviceNameTest, MergeCombinesOrNamesTheConflict) {
  auto a = *DeviceName::Parse("/job:worker");
  auto b = *DeviceName::Parse("/device:GPU:0");
  auto m = DeviceName::Merge(a, b);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->ToString(), "/job:worker/device:GPU:0");
  auto c = *DeviceName::Parse("/job:ps");
  auto bad = DeviceName::Merge(a, c);
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("disagree on the job"), std::string::npos);
}

}  // namespace
}  // namespace tact

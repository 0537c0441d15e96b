// RunBlocks (kernels/cpu/run_blocks.h): every block once, the call back
// only when all are done (also when a pool thread is slower than the
// caller's spin), the seat limit, and several callers on one device.
#include "kernels/cpu/run_blocks.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "graph/node_properties.h"
#include "kernels/kernel_registry.h"
#include "tests/kernels/kernel_test_util.h"

namespace tact {
namespace {

// Calls RunBlocks from a context on `device`, as a kernel would.
void RunBlocksOn(Device* device, int64_t blocks, Seats seats, const std::function<void(int64_t)>& fn) {
  NodeDef def;
  def.name = "run_blocks";
  def.op = "NoOp";
  auto props = NodeProperties::Create(std::move(def));
  ASSERT_TRUE(props.ok()) << props.status().ToString();
  auto kernel = CreateOpKernel(device, *props);
  ASSERT_TRUE(kernel.ok()) << kernel.status().ToString();
  OpKernelContext::Params params;
  params.device = device;
  params.op_kernel = kernel->get();
  OpKernelContext ctx(params);
  RunBlocks(&ctx, blocks, seats, fn);
}

TEST(RunBlocksTest, EveryBlockRunsOnceBeforeTheCallReturns) {
  for (int threads : {1, 2, 4}) {
    for (int64_t blocks : {1, 2, 3, 7, 64}) {
      std::vector<std::atomic<int>> runs(blocks);
      RunBlocksOn(test::CpuTestDevice(threads), blocks, Seats::kEveryThread, [&](int64_t i) {
        if (i % 3 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
        runs[i].fetch_add(1);
      });
      for (int64_t i = 0; i < blocks; ++i) {
        EXPECT_EQ(runs[i].load(), 1) << "block " << i << " of " << blocks << " on " << threads << " threads";
      }
    }
  }
}

// The caller spins at most 100 µs for a pool thread's last block, then
// sleeps: a block of 20 ms on a pool thread must still be waited for.
TEST(RunBlocksTest, ASlowPoolThreadIsWaitedForPastTheSpin) {
  const std::thread::id caller = std::this_thread::get_id();
  int joined = 0;
  for (int round = 0; round < 5; ++round) {
    std::atomic<int> slow_done{0}, pool_blocks{0};
    RunBlocksOn(test::CpuTestDevice(2), 4, Seats::kEveryThread, [&](int64_t) {
      if (std::this_thread::get_id() == caller) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));  // leaves a pool thread time to join
        return;
      }
      pool_blocks.fetch_add(1);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      slow_done.fetch_add(1);
    });
    EXPECT_EQ(slow_done.load(), pool_blocks.load()) << "round " << round;
    joined += pool_blocks.load();
  }
  EXPECT_GT(joined, 0) << "no pool thread took a block in 5 rounds";
}

TEST(RunBlocksTest, DeviceThreadsSeatsNoMoreThreadsThanTheDeviceHas) {
  std::atomic<int> now{0}, most{0};
  RunBlocksOn(test::CpuTestDevice(2), 16, Seats::kDeviceThreads, [&](int64_t) {
    const int in = now.fetch_add(1) + 1;
    for (int seen = most.load(); in > seen && !most.compare_exchange_weak(seen, in);) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    now.fetch_sub(1);
  });
  EXPECT_GE(most.load(), 1);
  EXPECT_LE(most.load(), 2);
}

// Concurrent steps share one device's pool: a pool thread that comes late
// to one call must find none of its blocks, and never another call's.
TEST(RunBlocksTest, ConcurrentCallersOnOneDeviceEachRunTheirOwnBlocksOnce) {
  auto device = NewCpuDevice("/job:localhost/replica:0/task:0/device:CPU:0", 2);
  std::atomic<int> wrong{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&] {
      for (int call = 0; call < 200; ++call) {
        std::vector<std::atomic<int>> runs(8);
        RunBlocksOn(device.get(), 8, Seats::kEveryThread, [&](int64_t i) { runs[i].fetch_add(1); });
        for (auto& r : runs) wrong += r.load() != 1;
      }
    });
  }
  for (std::thread& c : callers) c.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace tact

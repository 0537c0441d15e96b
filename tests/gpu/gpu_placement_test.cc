// The placer with a GPU beside a CPU (issue 20 item 4), on device names
// alone: it needs the GPU kernels registered, not a GPU, so it runs on
// every machine that builds CUDA.
#include <gtest/gtest.h>

#include <set>

#include "kernels/kernel_registry.h"
#include "placement/partitioner.h"
#include "placement/placer.h"
#include "tests/placement/placement_test_util.h"

namespace tact {
namespace {

using placement_test::Dev;

TEST(GpuPlacementTest, TheCnnsHeavyOpsGoToTheGpuAndKernellessOpsStayOnTheCpu) {
  Scope s = Scope::NewRootScope();
  ASSERT_TRUE(placement_test::BuildTrainingGraph(s, "cnn").ok()) << s.status().ToString();
  const std::string cpu = Dev(0, "CPU", 0), gpu = Dev(0, "GPU", 0);
  auto r = Place(s.graph(), {cpu, gpu});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::set<std::string> heavy_on_gpu;
  int on_gpu = 0;
  for (Node* n : s.graph()->nodes()) {
    const bool has_gpu_kernel = KernelRegistry::Global()->HasKernel(DEVICE_GPU, *n->properties());
    if (!has_gpu_kernel) {
      EXPECT_EQ(n->assigned_device(), cpu) << n->name() << " (" << n->op() << ")";
    }
    if (n->assigned_device() == gpu) {
      ++on_gpu;
      if (n->op() == "Conv2D" || n->op() == "Conv2DBackpropFilter" || n->op() == "Conv2DBackpropInput" ||
          n->op() == "MatMul") {
        heavy_on_gpu.insert(n->op());
      }
    }
  }
  // Every kind of heavy op of the cnn runs on the GPU.
  EXPECT_EQ(heavy_on_gpu, (std::set<std::string>{"Conv2D", "Conv2DBackpropFilter", "Conv2DBackpropInput",
                                                 "MatMul"}));
  EXPECT_GT(on_gpu, s.graph()->num_nodes() / 4);
  // The state goes with the work: every variable the optimizer updates is
  // on the GPU, though its initializer's random op runs on the CPU.
  int updates = 0;
  for (Node* n : s.graph()->nodes()) {
    if (n->op() != "ApplyAdam") continue;
    ++updates;
    EXPECT_EQ(n->assigned_device(), gpu) << n->name();
  }
  EXPECT_EQ(updates, 8);
  // And partitioning joins the two devices with Send/Recv pairs.
  PartitionOptions po;
  auto parts = Partition(*s.graph(), po);
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  ASSERT_EQ(parts->partitions.size(), 2u);
  EXPECT_GT(parts->send_recv_pairs, 0);
  int sends = 0, recvs = 0;
  for (const auto& [device, def] : parts->partitions) {
    for (const NodeDef& n : def.nodes) {
      sends += n.op == "_Send";
      recvs += n.op == "_Recv";
    }
  }
  EXPECT_GT(sends, 0);
  EXPECT_EQ(sends, recvs);
}

}  // namespace
}  // namespace tact

// How long partitioning takes on an Inception-sized training graph (paper
// 3.2; issue goal: place + partition 36,000 nodes on 8 devices in 100 ms).
// Disabled by default: building the graph takes seconds, and timings are
// printed, never asserted (a loaded machine must not fail a test). Run with
//   build/tests/tact_placement_tests --gtest_also_run_disabled_tests
//       --gtest_filter='*PartitionScale*'
// It prints one JSON line per configuration, with the thread's CPU time
// (steadier than wall time on a shared machine) and the wall time, each the
// minimum over the repetitions.
#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <iostream>

#include "graph/gradients/gradients.h"
#include "graph/ops/all_ops.h"
#include "tests/placement/partition_test_util.h"

namespace tact {
namespace {

// A deep MLP (16 units a layer), its gradients and an SGD update per
// variable: about 22 nodes a layer.
Scope DeepMlp(int layers) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT, PartialTensorShape({-1, 16}));
  Output h = x;
  std::vector<Output> vars;
  for (int l = 0; l < layers; ++l) {
    Scope ls = s.NewSubScope("layer" + std::to_string(l));
    auto W = Variable(ls.WithOpName("W"), {16, 16});
    auto b = Variable(ls.WithOpName("b"), {16});
    h = Relu(ls, Add(ls, MatMul(ls, h, W), b));
    vars.push_back(W);
    vars.push_back(b);
  }
  std::vector<Output> grads;
  EXPECT_TRUE(AddSymbolicGradients(s, {Sum(s, h, {0, 1})}, vars, {}, &grads).ok());
  for (size_t i = 0; i < vars.size(); ++i) ApplyGradientDescent(s, vars[i], 0.01f, grads[i]);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s;
}

double CpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// Round-robin by node (nearly every edge crosses: the worst case), blocks
// of consecutive ids (close to placing layers together), or one device.
void Place(Graph* g, const std::string& how, int devices) {
  const int64_t ids = g->num_node_ids();
  test::Place(g, [&](const Node* n) {
    if (how == "round-robin") return n->id() % devices;
    if (how == "id-blocks") return static_cast<int>(n->id() * devices / ids);
    return 0;
  });
  // A Variable's updates stay with it, as the placer's colocation does.
  for (Node* n : g->nodes()) {
    for (const Edge* e : n->in_edges()) {
      if (!e->IsControlEdge() && IsRefType(n->input_type(e->dst_input))) {
        n->set_assigned_device(e->src->assigned_device());
      }
    }
  }
}

TEST(PartitionScaleTest, DISABLED_PrintsPartitionTimes) {
  for (int layers : {1640, 3280}) {  // about 36,000 and 72,000 nodes
    Scope s = DeepMlp(layers);
    Graph* g = s.graph();
    for (const char* how : {"round-robin", "id-blocks", "one-device"}) {
      Place(g, how, 8);
      for (bool schedule : {false, true}) {
        PartitionOptions opts;
        opts.schedule_recvs = schedule;
        double cpu = 1e9, wall = 1e9;
        int pairs = 0;
        for (int rep = 0; rep < 7; ++rep) {
          const double c0 = CpuMs();
          const auto w0 = std::chrono::steady_clock::now();
          auto parts = Partition(*g, opts);
          wall = std::min(wall, std::chrono::duration<double, std::milli>(
                                    std::chrono::steady_clock::now() - w0).count());
          cpu = std::min(cpu, CpuMs() - c0);
          ASSERT_TRUE(parts.ok()) << parts.status().ToString();
          pairs = parts->send_recv_pairs;
        }
        std::cout << "{\"nodes\":" << g->num_nodes() << ",\"edges\":" << g->num_edges()
                  << ",\"devices\":8,\"placement\":\"" << how
                  << "\",\"schedule_recvs\":" << (schedule ? "true" : "false")
                  << ",\"partition_cpu_ms\":" << cpu << ",\"partition_wall_ms\":" << wall
                  << ",\"send_recv_pairs\":" << pairs << "}" << std::endl;
      }
    }
  }
}

}  // namespace
}  // namespace tact

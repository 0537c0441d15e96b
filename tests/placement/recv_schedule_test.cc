// The ASAP/ALAP scheduling of Recvs (paper 5.2): the levels, the gate each
// Recv waits for, and the point of it all: a lower peak of memory on the
// device that receives.
#include "placement/recv_schedule.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "graph/gradients/gradients.h"

#include "graph/op_registry.h"
#include "graph/ops/all_ops.h"
#include "kernels/kernel_registry.h"
#include "tests/placement/partition_test_util.h"

namespace tact {
namespace {

using test::Dev;

// A step of fixed length: 10 ms, then its input unchanged. A chain of them
// makes "late" a matter of tens of milliseconds, not of scheduling luck.
REGISTER_OP("RecvScheduleTestSleep").Input("x: float").Output("y: float");
class SleepOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ctx->set_output(0, ctx->input(0));
  }
};
REGISTER_KERNEL_BUILDER(Name("RecvScheduleTestSleep").Device(DEVICE_CPU), SleepOp);

TEST(RecvScheduleTest, LevelsAreDepthsFromBothEnds) {
  // x -> n1 -> n2 -> n3 (the critical path), x -> m -> n3, y -> m.
  Scope s = Scope::NewRootScope();
  auto x = Const(s.WithOpName("x"), Tensor::Scalar<float>(1));
  auto y = Const(s.WithOpName("y"), Tensor::Scalar<float>(2));
  auto n1 = Neg(s.WithOpName("n1"), x);
  auto n2 = Neg(s.WithOpName("n2"), n1);
  auto m = Add(s.WithOpName("m"), x, y);
  Add(s.WithOpName("n3"), n2, m);
  ASSERT_TRUE(s.ok());
  const Graph& g = *s.graph();
  // x, y, m on device 1; the rest on device 0.
  std::vector<int> device(g.num_node_ids(), 0);
  for (const char* name : {"x", "y", "m"}) device[g.FindNode(name)->id()] = 1;
  auto sched = RecvSchedule::Compute(g, device, 2);
  ASSERT_TRUE(sched.ok()) << sched.status().ToString();
  auto asap = [&](const char* n) { return sched->asap(g.FindNode(n)->id()); };
  auto alap = [&](const char* n) { return sched->alap(g.FindNode(n)->id()); };
  EXPECT_EQ(sched->depth(), 3);
  EXPECT_EQ(asap("x"), 0);
  EXPECT_EQ(alap("x"), 0);
  EXPECT_EQ(asap("y"), 0);
  EXPECT_EQ(alap("y"), 1);  // slack: only m, at level 2 at the latest, needs it
  EXPECT_EQ(asap("m"), 1);
  EXPECT_EQ(alap("m"), 2);
  EXPECT_EQ(asap("n3"), 3);
  EXPECT_EQ(alap("n3"), 3);
  // A Recv on device 0 whose consumer sits at level 3, with no lead: the
  // gate is the device-0 node of ALAP <= 2 with the latest ASAP: n2.
  EXPECT_EQ(sched->Gate(0, 3, 0, 0), g.FindNode("n2")->id());
  EXPECT_EQ(sched->Gate(0, 3, 1, 0), g.FindNode("n1")->id());
  // Nothing to wait for when the tensor is available later anyway.
  EXPECT_EQ(sched->Gate(0, 3, 0, 2), -1);
  EXPECT_EQ(sched->Gate(0, 0, 0, 0), -1);
  // On device 1 at level <= 1: x (ASAP 0) or y (ASAP 0): the lower id.
  EXPECT_EQ(sched->Gate(1, 2, 0, -1), g.FindNode("x")->id());
}

// Device 0 makes kBig tensors of 1 MiB at once; device 1 negates each, but
// needs them only one after the other, after a ~100 ms chain of its own.
// Without scheduling every negation runs as soon as its tensor arrives and
// all kBig results wait on device 1; with it, each Recv waits for a node
// that finishes shortly before its result is summed.
constexpr int kBig = 12;
constexpr int64_t kElems = 1 << 18;  // floats: 1 MiB
constexpr int64_t kMiB = 1 << 20;

void BuildLateConsumers(const Scope& s) {
  Scope a = s.NewSubScope("a");  // device 0
  Tensor value(DT_FLOAT, {kElems});
  for (int64_t i = 0; i < kElems; ++i) value.data<float>()[i] = static_cast<float>(i % 7);
  auto big = Const(a.WithOpName("big"), value);
  std::vector<Output> made;
  for (int i = 0; i < kBig; ++i) made.push_back(Mul(a, big, static_cast<float>(i + 1)));
  Scope b = s.NewSubScope("b");  // device 1
  Output c = Const(b, Tensor::FromVector<float>({1, 2, 3, 4}));
  for (int i = 0; i < 10; ++i) c = OpBuilder(b, "RecvScheduleTestSleep").Input(c).FinalizeOutput();
  auto scale = Sum(b, c, {0});
  Output acc = Mul(b, Neg(b, made[0]), scale);
  for (int i = 1; i < kBig; ++i) acc = Add(b, acc, Neg(b, made[i]));
  test::Fetch(b, acc, "acc");
}

struct PeakRun {
  int64_t peak = 0;
  Tensor acc;
  int scheduled = 0;
};

PeakRun RunOnce(bool schedule) {
  Scope s = Scope::NewRootScope();
  BuildLateConsumers(s);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  test::Place(s.graph(), [](const Node* n) { return n->name().rfind("a/", 0) == 0 ? 0 : 1; });
  PartitionOptions opts;
  opts.schedule_recvs = schedule;
  auto parts = Partition(*s.graph(), opts);
  EXPECT_TRUE(parts.ok()) << parts.status().ToString();
  std::vector<std::unique_ptr<Device>> devices;
  for (int i = 0; i < 2; ++i) devices.push_back(NewCpuDevice(Dev(i), 2));
  auto run = test::PartitionedRun::Create(
      *parts, {{Dev(0), devices[0].get()}, {Dev(1), devices[1].get()}});
  EXPECT_TRUE(run.ok()) << run.status().ToString();
  PeakRun out;
  out.scheduled = parts->scheduled_recvs;
  devices[1]->allocator()->ResetPeak();
  auto fetched = (*run)->Step({"acc"});
  EXPECT_TRUE(fetched.ok()) << fetched.status().ToString();
  out.peak = devices[1]->allocator()->GetStats().peak_bytes_in_use;
  if (fetched.ok()) out.acc = (*fetched)[0];
  return out;
}

TEST(RecvScheduleTest, DelayedRecvsLowerThePeakOfTheReceivingDevice) {
  const PeakRun eager = RunOnce(false);
  const PeakRun late = RunOnce(true);
  EXPECT_EQ(eager.scheduled, 0);
  EXPECT_EQ(late.scheduled, kBig);  // every big tensor's Recv is gated
  ASSERT_TRUE(eager.acc.IsInitialized() && late.acc.IsInitialized());
  EXPECT_TRUE(eager.acc.BitwiseEqual(late.acc));
  // acc[1] = -1 * (1 * 10) - (2 + 3 + ... + 12) = -10 - 77.
  EXPECT_EQ(late.acc.data<float>()[1], -87.0f);
  // Eager: the 12 negations are done long before the 100 ms chain ends, so
  // all of them, and the first sum, are alive together.
  EXPECT_GE(eager.peak, kBig * kMiB);
  // Scheduled (lead 1): the Recv of tensor i waits for the sum three steps
  // before its own, so at most three negations, the running sum and its
  // successor are alive at once: 5 MiB, plus the chain's few bytes.
  EXPECT_LE(late.peak, 5 * kMiB + 4096);
  std::cout << "peak on the receiving device: " << eager.peak << " bytes eager, " << late.peak
            << " bytes with schedule_recvs\n";
}

// Kahn's algorithm over the union of the partitions, with an edge from each
// _Send to the _Recv of the same tensor_name. A Send never blocks, so a
// step can hang only if this union has a cycle.
bool UnionIsAcyclic(const PartitionResult& parts) {
  std::map<std::string, int> index;
  std::vector<const NodeDef*> nodes;
  for (const auto& [device, def] : parts.partitions) {
    for (const NodeDef& n : def.nodes) {
      index[n.name] = static_cast<int>(nodes.size());
      nodes.push_back(&n);
    }
  }
  std::vector<std::vector<int>> out(nodes.size());
  std::vector<int> pending(nodes.size(), 0);
  std::map<std::string, int> send_of;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i]->op == "_Send" && !nodes[i]->attrs.at("client_terminated").b()) {
      send_of[nodes[i]->attrs.at("tensor_name").s()] = static_cast<int>(i);
    }
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    std::vector<int> srcs;
    for (const std::string& in : nodes[i]->inputs) {
      StatusOr<InputRef> ref = ParseInputRef(in);
      EXPECT_TRUE(ref.ok() && index.count(ref->node)) << in;
      if (ref.ok() && index.count(ref->node)) srcs.push_back(index[ref->node]);
    }
    if (nodes[i]->op == "_Recv" && !nodes[i]->attrs.at("client_terminated").b()) {
      srcs.push_back(send_of.at(nodes[i]->attrs.at("tensor_name").s()));
    }
    for (int src : srcs) {
      out[src].push_back(static_cast<int>(i));
      ++pending[i];
    }
  }
  std::vector<int> ready;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (pending[i] == 0) ready.push_back(static_cast<int>(i));
  }
  size_t visited = 0;
  while (!ready.empty()) {
    const int n = ready.back();
    ready.pop_back();
    ++visited;
    for (int d : out[n]) {
      if (--pending[d] == 0) ready.push_back(d);
    }
  }
  return visited == nodes.size();
}

TEST(RecvScheduleTest, GatedPartitionsOfATrainingGraphStayAcyclic) {
  // 30 layers with Variables, gradients and their updates, scattered over
  // five devices; the Variables' updates stay with their Variables.
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT, PartialTensorShape({-1, 8}));
  Output h = x;
  std::vector<Output> vars;
  for (int l = 0; l < 30; ++l) {
    Scope ls = s.NewSubScope("layer" + std::to_string(l));
    auto W = Variable(ls.WithOpName("W"), {8, 8});
    auto b = Variable(ls.WithOpName("b"), {8});
    h = Relu(ls, Add(ls, MatMul(ls, h, W), b));
    vars.push_back(W);
    vars.push_back(b);
  }
  std::vector<Output> grads;
  ASSERT_TRUE(AddSymbolicGradients(s, {Sum(s, h, {0, 1})}, vars, {}, &grads).ok());
  for (size_t i = 0; i < vars.size(); ++i) ApplyGradientDescent(s, vars[i], 0.1f, grads[i]);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  Graph* g = s.graph();
  test::Place(g, [](const Node* n) { return (n->id() * 7) % 5; });
  for (Node* n : g->nodes()) {
    for (const Edge* e : n->in_edges()) {
      if (!e->IsControlEdge() && IsRefType(n->input_type(e->dst_input))) {
        n->set_assigned_device(e->src->assigned_device());
      }
    }
  }
  // One pair per distinct (tensor or control source, destination device),
  // or a copy of a small Const there.
  std::set<std::tuple<int, int, std::string>> crossings;
  for (Node* n : g->nodes()) {
    for (const Edge* e : n->in_edges()) {
      if (e->src->assigned_device() != n->assigned_device()) {
        crossings.emplace(e->src->id(), e->src_output, n->assigned_device());
      }
    }
  }
  for (int lead : {0, 1, 3}) {
    SCOPED_TRACE("lead " + std::to_string(lead));
    PartitionOptions opts;
    opts.schedule_recvs = true;
    opts.recv_lead_levels = lead;
    auto parts = Partition(*g, opts);
    ASSERT_TRUE(parts.ok()) << parts.status().ToString();
    EXPECT_EQ(parts->send_recv_pairs + parts->duplicated_consts, static_cast<int>(crossings.size()));
    EXPECT_GT(parts->duplicated_consts, 0);  // the learning rates
    EXPECT_GT(parts->scheduled_recvs, parts->send_recv_pairs / 4);
    EXPECT_TRUE(UnionIsAcyclic(*parts));
    for (const auto& [device, def] : parts->partitions) {
      auto part = Graph::FromGraphDef(def);  // valid: every input resolves, no cycle
      EXPECT_TRUE(part.ok()) << device << ": " << part.status().ToString();
    }
  }
}

}  // namespace
}  // namespace tact

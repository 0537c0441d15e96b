// The partitioner (paper 3.2.2, Figure 4; 5.2; 5.5): the shape of the
// partitions it builds, and that running them on several CPU devices that
// share one rendezvous gives bitwise the values of the whole graph on one.
#include "placement/partitioner.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

#include "graph/gradients/gradients.h"
#include "graph/ops/all_ops.h"
#include "kernels/resource_mgr.h"
#include "tests/placement/partition_test_util.h"

namespace tact {
namespace {

using test::Dev;

// The nodes of `def` with op `op`.
std::vector<const NodeDef*> NodesOf(const GraphDef& def, const std::string& op) {
  std::vector<const NodeDef*> out;
  for (const NodeDef& n : def.nodes) {
    if (n.op == op) out.push_back(&n);
  }
  return out;
}

const NodeDef* Find(const GraphDef& def, const std::string& name) {
  for (const NodeDef& n : def.nodes) {
    if (n.name == name) return &n;
  }
  return nullptr;
}

// Places nodes by name; others on device `other`.
void PlaceByName(Graph* g, const std::map<std::string, int>& where, int other = 0) {
  test::Place(g, [&](const Node* n) {
    auto it = where.find(n->name());
    return it == where.end() ? other : it->second;
  });
}

std::vector<std::unique_ptr<Device>> MakeDevices(int n, int threads = 2) {
  std::vector<std::unique_ptr<Device>> out;
  for (int i = 0; i < n; ++i) out.push_back(NewCpuDevice(Dev(i), threads));
  return out;
}

std::map<std::string, Device*> ByName(const std::vector<std::unique_ptr<Device>>& devices) {
  std::map<std::string, Device*> out;
  for (const auto& d : devices) out[d->name()] = d.get();
  return out;
}

StatusOr<std::vector<Tensor>> RunPartitioned(const Graph& g, const PartitionOptions& opts,
                                             const std::vector<std::unique_ptr<Device>>& devices,
                                             const std::vector<std::string>& fetches,
                                             const std::string& container = "") {
  TACT_ASSIGN_OR_RETURN(PartitionResult parts, Partition(g, opts));
  TACT_ASSIGN_OR_RETURN(auto run, test::PartitionedRun::Create(parts, ByName(devices)));
  return run->Step(fetches, container);
}

TEST(PartitionerTest, Figure4OneRecvPerTensorAndDestinationDevice) {
  Scope s = Scope::NewRootScope();
  auto a = Neg(s.WithOpName("a"), Tensor::FromVector<float>({1, -2, 3}));
  auto b = Exp(s.WithOpName("b"), a);
  auto c = Relu(s.WithOpName("c"), a);
  auto d = Square(s.WithOpName("d"), a);
  test::Fetch(s, b, "b");
  test::Fetch(s, c, "c");
  test::Fetch(s, d, "d");
  ASSERT_TRUE(s.ok());
  // b, c and their fetches on device 1, d and its fetch on device 2.
  PlaceByName(s.graph(), {{"b", 1}, {"c", 1}, {"b_fetch", 1}, {"c_fetch", 1}, {"d", 2},
                          {"d_fetch", 2}});
  auto parts = Partition(*s.graph(), {});
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  EXPECT_EQ(parts->send_recv_pairs, 2);  // a -> device 1 once, a -> device 2 once
  const GraphDef& p0 = parts->partitions.at(Dev(0));
  const GraphDef& p1 = parts->partitions.at(Dev(1));
  const GraphDef& p2 = parts->partitions.at(Dev(2));
  ASSERT_EQ(NodesOf(p0, "_Send").size(), 2u);
  ASSERT_EQ(NodesOf(p1, "_Recv").size(), 1u);
  ASSERT_EQ(NodesOf(p2, "_Recv").size(), 1u);
  const std::string recv1 = NodesOf(p1, "_Recv")[0]->name;
  EXPECT_EQ(Find(p1, "b")->inputs, std::vector<std::string>{recv1});
  EXPECT_EQ(Find(p1, "c")->inputs, std::vector<std::string>{recv1});
  EXPECT_EQ(Find(p2, "d")->inputs, std::vector<std::string>{NodesOf(p2, "_Recv")[0]->name});
  for (const NodeDef* send : NodesOf(p0, "_Send")) EXPECT_EQ(send->inputs[0], "a");
  // Every node lands once, on its device, with NodeDef::device set.
  int total = 0;
  for (const auto& [device, def] : parts->partitions) {
    for (const NodeDef& n : def.nodes) {
      EXPECT_EQ(n.device, device) << n.name;
      const bool added = (n.op == "_Send" || n.op == "_Recv") &&
                         !n.attrs.at("client_terminated").b();
      if (!added) ++total;
    }
  }
  EXPECT_EQ(total, s.graph()->num_nodes());
  // And the values are those of the whole graph.
  auto devices = MakeDevices(3);
  auto whole = test::RunWhole(s.shared_graph(), devices[0].get(), {"b", "c", "d"});
  auto split = RunPartitioned(*s.graph(), {}, devices, {"b", "c", "d"});
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  ASSERT_TRUE(split.ok()) << split.status().ToString();
  test::ExpectBitwiseEqual(*whole, *split);
  EXPECT_EQ((*split)[1].data<float>()[0], 0.0f);  // relu(-1)
}

TEST(PartitionerTest, EachPairHasItsOwnKeyAndTheSendersIncarnation) {
  Scope s = Scope::NewRootScope();
  auto a = Neg(s.WithOpName("a"), Tensor::FromVector<float>({1, 2}));
  auto b = Neg(s.WithOpName("b"), a);       // device 1
  auto c = Add(s.WithOpName("c"), a, b);    // device 2
  auto d = Add(s.WithOpName("d"), c, a);    // device 0
  test::Fetch(s, d, "d");
  ASSERT_TRUE(s.ok());
  PlaceByName(s.graph(), {{"b", 1}, {"c", 2}});
  PartitionOptions opts;
  opts.incarnations[Dev(0)] = 77;
  opts.incarnations[Dev(2)] = 5;
  auto parts = Partition(*s.graph(), opts);
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  // a->1, a->2, b->2, c->0.
  EXPECT_EQ(parts->send_recv_pairs, 4);
  std::set<std::string> keys;
  std::map<std::string, const NodeDef*> recv_by_name;
  for (const auto& [device, def] : parts->partitions) {
    for (const NodeDef* r : NodesOf(def, "_Recv")) recv_by_name[r->attrs.at("tensor_name").s()] = r;
  }
  for (const auto& [device, def] : parts->partitions) {
    for (const NodeDef* send : NodesOf(def, "_Send")) {
      if (send->attrs.at("client_terminated").b()) continue;  // the fetch
      const std::string name = send->attrs.at("tensor_name").s();
      EXPECT_TRUE(keys.insert(name).second) << name << " used twice";
      EXPECT_EQ(send->attrs.at("send_device").s(), device);
      const int64_t want = device == Dev(0) ? 77 : device == Dev(2) ? 5 : 0;
      EXPECT_EQ(send->attrs.at("send_device_incarnation").i(), want) << device;
      // The Recv with the same tensor_name agrees on every key field.
      ASSERT_TRUE(recv_by_name.count(name)) << name;
      const NodeDef* recv = recv_by_name[name];
      for (const char* attr : {"send_device", "send_device_incarnation", "recv_device"}) {
        EXPECT_EQ(recv->attrs.at(attr), send->attrs.at(attr)) << attr;
      }
      EXPECT_EQ(recv->attrs.at("tensor_type"), send->attrs.at("T"));
      EXPECT_EQ(recv->attrs.at("recv_device").s(), recv->device);
    }
  }
  EXPECT_EQ(keys.size(), 4u);
}

TEST(PartitionerTest, ControlEdgeAcrossDevicesIsCarriedByATinyTensor) {
  Scope s = Scope::NewRootScope();
  auto a = Neg(s.WithOpName("a"), Const(s.WithOpName("one"), Tensor::Scalar<float>(1)));
  auto b = Neg(s.WithOpName("b"), 2.0f);
  auto c = Identity(s.WithOpName("c").WithControlDependencies({a}), b);
  Identity(s.WithOpName("e").WithControlDependencies({a}), b);
  test::Fetch(s, c, "c");
  ASSERT_TRUE(s.ok());
  PlaceByName(s.graph(), {{"one", 0}, {"a", 0}}, /*other=*/1);
  auto parts = Partition(*s.graph(), {});
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  EXPECT_EQ(parts->send_recv_pairs, 1);  // one pair for a's control, shared by c and e
  EXPECT_EQ(parts->control_pairs, 1);
  const GraphDef& p0 = parts->partitions.at(Dev(0));
  const GraphDef& p1 = parts->partitions.at(Dev(1));
  ASSERT_EQ(NodesOf(p0, "_Send").size(), 1u);
  const NodeDef* dummy = Find(p0, NodesOf(p0, "_Send")[0]->inputs[0]);
  ASSERT_NE(dummy, nullptr);
  EXPECT_EQ(dummy->op, "Const");
  EXPECT_EQ(dummy->inputs, std::vector<std::string>{"^a"});
  EXPECT_EQ(dummy->attrs.at("value").tensor().NumElements(), 1);
  const std::string recv = NodesOf(p1, "_Recv")[0]->name;
  EXPECT_EQ(Find(p1, "c")->inputs, (std::vector<std::string>{"b", "^" + recv}));
  EXPECT_EQ(Find(p1, "e")->inputs, (std::vector<std::string>{"b", "^" + recv}));
}

TEST(PartitionerTest, VariableOnOneDeviceReadAndUpdatedFromOthers) {
  // device 0: v, its init and its update; device 1: the update's value,
  // and a read of v that must wait (a control edge from device 0) for the
  // update; device 2: a reader of the update's output.
  Scope s = Scope::NewRootScope();
  auto v = Variable(s.WithOpName("v"), {2});
  auto init = Assign(s.WithOpName("init"), v, {1.0f, 2.0f});
  auto delta = Mul(s.WithOpName("delta"), Tensor::FromVector<float>({3, 4}), 2.0f);
  auto upd = AssignAdd(s.WithOpName("upd").WithControlDependencies({init}), v, delta);
  auto again = Variable(s.WithOpName("again").WithControlDependencies({upd}), {2}, DT_FLOAT, "",
                        "v");
  auto after = Neg(s.WithOpName("after"), again);
  auto half = Mul(s.WithOpName("half"), upd, 0.5f);
  test::Fetch(s, after, "after");
  test::Fetch(s, half, "half");
  ASSERT_TRUE(s.ok());
  PlaceByName(s.graph(), {{"delta", 1}, {"again", 1}, {"after", 1}, {"after_fetch", 1},
                          {"half", 2}, {"half_fetch", 2}});
  auto devices = MakeDevices(3);
  const std::string c1 = ResourceMgr::Global()->NewPrivateContainerName("part");
  const std::string c2 = ResourceMgr::Global()->NewPrivateContainerName("part");
  auto whole = test::RunWhole(s.shared_graph(), devices[0].get(), {"after", "half"}, c1);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  PartitionResult parts = Partition(*s.graph(), {}).value();
  EXPECT_EQ(parts.control_pairs, 1);  // upd -> again
  auto run = test::PartitionedRun::Create(parts, ByName(devices));
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  for (int step = 0; step < 3; ++step) {  // init runs every step: same values each time
    auto split = (*run)->Step({"after", "half"}, c2);
    ASSERT_TRUE(split.ok()) << split.status().ToString();
    test::ExpectBitwiseEqual(*whole, *split);
    // v = [1, 2] + 2 * [3, 4] = [7, 10], read after the update on device 1.
    EXPECT_EQ((*split)[0].data<float>()[0], -7.0f);
    EXPECT_EQ((*split)[0].data<float>()[1], -10.0f);
    EXPECT_EQ((*split)[1].data<float>()[1], 5.0f);
  }
  ResourceMgr::Global()->Reset(c1);
  ResourceMgr::Global()->Reset(c2);
}

TEST(PartitionerTest, ARefEdgeAcrossDevicesIsAnErrorNamingBothEnds) {
  Scope s = Scope::NewRootScope();
  auto v = Variable(s.WithOpName("v"), {2});
  Assign(s.WithOpName("far_assign"), v, {1.0f, 2.0f});
  ASSERT_TRUE(s.ok());
  PlaceByName(s.graph(), {{"far_assign", 1}});
  auto parts = Partition(*s.graph(), {});
  ASSERT_FALSE(parts.ok());
  EXPECT_EQ(parts.status().code(), Code::kInvalidArgument);
  const std::string msg = parts.status().message();
  EXPECT_NE(msg.find("node 'far_assign' (op 'Assign')"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'v'"), std::string::npos) << msg;
  EXPECT_NE(msg.find(Dev(0)), std::string::npos) << msg;
  EXPECT_NE(msg.find(Dev(1)), std::string::npos) << msg;
}

TEST(PartitionerTest, ANodeWithoutDeviceIsAnErrorNamingIt) {
  Scope s = Scope::NewRootScope();
  auto a = Neg(s.WithOpName("a"), 1.0f);
  Neg(s.WithOpName("lost"), a);
  ASSERT_TRUE(s.ok());
  PlaceByName(s.graph(), {});
  s.graph()->FindNode("lost")->set_assigned_device("");
  auto parts = Partition(*s.graph(), {});
  ASSERT_FALSE(parts.ok());
  EXPECT_EQ(parts.status().code(), Code::kInvalidArgument);
  EXPECT_NE(parts.status().message().find("node 'lost' (op 'Neg')"), std::string::npos)
      << parts.status().ToString();
}

// Seeded values in [-1, 1).
Tensor RandomMatrix(int64_t rows, int64_t cols, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Tensor t(DT_FLOAT, {rows, cols});
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = dist(gen);
  return t;
}

// A small MLP with its gradients: many edges of every kind to cut.
struct Mlp {
  Scope s = Scope::NewRootScope();
  std::vector<std::string> fetches;
};

std::unique_ptr<Mlp> BuildMlp() {
  auto m = std::make_unique<Mlp>();
  Scope& s = m->s;
  auto x = Const(s, RandomMatrix(8, 16, 1));
  std::vector<Output> params;
  Output h = x;
  int64_t in = 16;
  for (int layer = 0; layer < 3; ++layer) {
    const int64_t out = layer == 2 ? 4 : 32;
    // Appended: GCC 12 warns (-Wrestrict, wrongly) on "W" + to_string.
    std::string w_name = "W", b_name = "b";
    w_name += std::to_string(layer);
    b_name += std::to_string(layer);
    auto W = Const(s.WithOpName(w_name), RandomMatrix(in, out, 10 + layer));
    auto b = Const(s.WithOpName(b_name), RandomMatrix(1, out, 20 + layer));
    h = Add(s, MatMul(s, h, W), b);
    if (layer < 2) h = Relu(s, h);
    params.push_back(W);
    params.push_back(b);
    in = out;
  }
  auto loss = Sum(s.WithOpName("loss"), Square(s, h), {0, 1});
  std::vector<Output> grads;
  EXPECT_TRUE(AddSymbolicGradients(s, {loss}, params, {}, &grads).ok());
  test::Fetch(s, loss, "loss");
  m->fetches.push_back("loss");
  for (size_t i = 0; i < grads.size(); ++i) {
    std::string name = "g";
    name += std::to_string(i);
    test::Fetch(s, grads[i], name);
    m->fetches.push_back(name);
  }
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return m;
}

TEST(PartitionerTest, MlpWithGradientsGivesTheSameBitsOnTwoThreeAndFourDevices) {
  auto m = BuildMlp();
  auto devices = MakeDevices(4);
  auto whole = test::RunWhole(m->s.shared_graph(), devices[0].get(), m->fetches);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  for (int k : {2, 3, 4}) {
    for (bool schedule : {false, true}) {
      SCOPED_TRACE("devices " + std::to_string(k) + (schedule ? " with" : " without") +
                   " schedule_recvs");
      // Round-robin by node: nearly every edge crosses devices.
      test::Place(m->s.graph(), [k](const Node* n) { return n->id() % k; });
      PartitionOptions opts;
      opts.schedule_recvs = schedule;
      auto parts = Partition(*m->s.graph(), opts);
      ASSERT_TRUE(parts.ok()) << parts.status().ToString();
      EXPECT_EQ(static_cast<int>(parts->partitions.size()), k);
      EXPECT_GT(parts->send_recv_pairs, m->s.graph()->num_nodes() / 2);
      if (schedule) {
        EXPECT_GT(parts->scheduled_recvs, 0);
      }
      auto run = test::PartitionedRun::Create(*parts, ByName(devices));
      ASSERT_TRUE(run.ok()) << run.status().ToString();
      for (int step = 0; step < 2; ++step) {
        auto split = (*run)->Step(m->fetches);
        ASSERT_TRUE(split.ok()) << split.status().ToString();
        test::ExpectBitwiseEqual(*whole, *split);
      }
    }
  }
}

}  // namespace
}  // namespace tact

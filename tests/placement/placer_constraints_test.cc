// The placer's constraints (paper 4.3): kernels, requested devices (full and
// partial), colocation by hint and by reference, the error when nothing
// fits, soft placement, pre-assigned nodes.
#include <gtest/gtest.h>

#include "graph/ops/all_ops.h"
#include "placement/placer.h"
#include "tests/placement/placement_test_util.h"

namespace tact {
namespace {

using placement_test::Dev;

// Two tasks of two CPUs each, and an accelerator in task 0 with kernels for
// float MatMul and Identity only (fake_accelerator_kernels.cc).
const std::vector<std::string>& Devices() {
  static const auto* const kDevices = new std::vector<std::string>{
      Dev(0, "CPU", 0), Dev(0, "CPU", 1), Dev(1, "CPU", 0), Dev(1, "CPU", 1), Dev(0, "ACCEL", 0)};
  return *kDevices;
}

TEST(Placer, EveryNodeGetsAFeasibleDevice) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT, PartialTensorShape({4, 4}));
  Relu(s.WithOpName("y"), MatMul(s, x, x));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto r = Place(s.graph(), Devices());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (Node* n : s.graph()->nodes()) {
    EXPECT_FALSE(n->assigned_device().empty()) << n->name();
    // Placeholder and Relu have no kernel for the accelerator.
    if (n->op() != "MatMul") {
      EXPECT_NE(n->assigned_device(), Dev(0, "ACCEL", 0)) << n->name();
    }
  }
  int total = 0;
  for (const auto& [d, count] : r->nodes_per_device) total += count;
  EXPECT_EQ(total, s.graph()->num_nodes());
  EXPECT_EQ(r->nodes_per_device.size(), Devices().size());
}

TEST(Placer, RequestedDeviceKinds) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT, PartialTensorShape({4, 4}));
  auto task1 = Identity(s.WithOpName("task1").WithDevice("/job:worker/task:1"), x);
  auto any_cpu = MatMul(s.WithOpName("any_cpu").WithDevice("/device:cpu:*"), x, x);
  auto cpu1 = Identity(s.WithOpName("cpu1").WithDevice("/job:worker/task:1/device:cpu:1"), x);
  auto accel = MatMul(s.WithOpName("accel").WithDevice("/device:accel:0"), x, x);
  auto type_only = Identity(s.WithOpName("type_only").WithDevice("/device:ACCEL"), x);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto r = Place(s.graph(), Devices());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const std::string t1 = task1.node->assigned_device();
  EXPECT_TRUE(t1 == Dev(1, "CPU", 0) || t1 == Dev(1, "CPU", 1)) << t1;
  EXPECT_NE(any_cpu.node->assigned_device().find("/device:CPU:"), std::string::npos);
  EXPECT_EQ(cpu1.node->assigned_device(), Dev(1, "CPU", 1));
  EXPECT_EQ(accel.node->assigned_device(), Dev(0, "ACCEL", 0));
  EXPECT_EQ(type_only.node->assigned_device(), Dev(0, "ACCEL", 0));
  EXPECT_TRUE(r->soft_placed_nodes.empty());
}

TEST(Placer, ColocationHintJoinsNodesTheGreedyWalkWouldSplit) {
  // Two heavy independent MatMuls: alone, the second goes to the idle CPU.
  auto build = [](bool colocate) {
    auto s = std::make_unique<Scope>(Scope::NewRootScope());
    auto x = Placeholder(s->WithOpName("x"), DT_FLOAT, PartialTensorShape({512, 512}));
    auto a = MatMul(s->WithOpName("a"), x, x);
    Scope sb = colocate ? s->ColocateWith(a) : *s;
    MatMul(sb.WithOpName("b"), x, x);
    return s;
  };
  const std::vector<std::string> cpus = placement_test::LocalCpus(2);
  auto apart = build(false);
  ASSERT_TRUE(Place(apart->graph(), cpus).ok());
  EXPECT_NE(apart->graph()->FindNode("a")->assigned_device(),
            apart->graph()->FindNode("b")->assigned_device());
  auto together = build(true);
  ASSERT_TRUE(Place(together->graph(), cpus).ok());
  EXPECT_EQ(together->graph()->FindNode("a")->assigned_device(),
            together->graph()->FindNode("b")->assigned_device());
}

TEST(Placer, ReferenceInputsAreColocatedWithTheirVariable) {
  Scope s = Scope::NewRootScope();
  auto v = Variable(s.WithOpName("v").WithDevice("/job:worker/task:1/device:CPU:1"),
                    PartialTensorShape({4}));
  auto init = Assign(s.WithOpName("init"), v, Tensor::FromVector<float>({1, 2, 3, 4}));
  auto step = ApplyGradientDescent(s.WithOpName("step"), v, 0.1f,
                                   Tensor::FromVector<float>({1, 1, 1, 1}));
  auto read = Relu(s.WithOpName("read"), v);  // a plain input: free to go elsewhere
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto r = Place(s.graph(), Devices());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(init.node->assigned_device(), Dev(1, "CPU", 1));
  EXPECT_EQ(step.node->assigned_device(), Dev(1, "CPU", 1));
  EXPECT_FALSE(read.node->assigned_device().empty());
}

TEST(Placer, ConflictingConstraintsNameTheWholeGroup) {
  Scope s = Scope::NewRootScope();
  auto v = Variable(s.WithOpName("weights").WithDevice("/job:worker/task:0"),
                    PartialTensorShape({4}));
  ApplyGradientDescent(s.WithOpName("update").WithDevice("/job:worker/task:1"), v,
                                     0.1f, Tensor::FromVector<float>({1, 1, 1, 1}));
  Relu(s.WithOpName("other"), v);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto r = Place(s.graph(), Devices());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  const std::string& m = r.status().message();
  // The node that emptied the intersection, its op, the group.
  EXPECT_NE(m.find("cannot place node 'update' (op 'ApplyGradientDescent')"), std::string::npos)
      << m;
  EXPECT_NE(m.find("2 nodes that must share one device"), std::string::npos) << m;
  EXPECT_NE(m.find("'weights' (op Variable): requested device '/job:worker/task:0'"),
            std::string::npos) << m;
  EXPECT_NE(m.find("'update' (op ApplyGradientDescent): requested device '/job:worker/task:1'"),
            std::string::npos) << m;
  EXPECT_NE(m.find("takes a reference to 'weights'"), std::string::npos) << m;
  EXPECT_EQ(m.find("'other'"), std::string::npos) << m;  // not in the group
  // Every device with what excludes it, kernels included.
  EXPECT_NE(m.find(Dev(1, "CPU", 0) + ": 'weights' requests '/job:worker/task:0'"),
            std::string::npos) << m;
  EXPECT_NE(m.find(Dev(0, "CPU", 1) + ": 'update' requests '/job:worker/task:1'"),
            std::string::npos) << m;
  EXPECT_NE(m.find(Dev(0, "ACCEL", 0) + ": no ACCEL kernel for 'weights' (Variable), 'update' "
                                      "(ApplyGradientDescent)"),
            std::string::npos) << m;
  EXPECT_NE(m.find("allow_soft_placement"), std::string::npos) << m;
  // Nothing was assigned.
  for (Node* n : s.graph()->nodes()) EXPECT_TRUE(n->assigned_device().empty()) << n->name();
}

TEST(Placer, ARequestNoDeviceWithKernelsMatchesIsAnError) {
  Scope s = Scope::NewRootScope();
  Variable(s.WithOpName("v").WithDevice("/device:ACCEL:0"), PartialTensorShape({4}));
  ASSERT_TRUE(s.ok());
  auto r = Place(s.graph(), Devices());
  ASSERT_FALSE(r.ok());
  const std::string& m = r.status().message();
  EXPECT_NE(m.find("cannot place node 'v' (op 'Variable'): no device satisfies its requested "
                   "device and has a kernel for it"),
            std::string::npos) << m;
  EXPECT_NE(m.find("requested device '/device:ACCEL:0'; kernels for CPU"), std::string::npos) << m;
  EXPECT_NE(m.find(Dev(0, "ACCEL", 0) + ": no ACCEL kernel for 'v' (Variable)"), std::string::npos)
      << m;
  EXPECT_NE(m.find(Dev(0, "CPU", 0) + ": 'v' requests '/device:ACCEL:0'"), std::string::npos) << m;
}

TEST(Placer, SoftPlacementIgnoresRequestsButNeverKernels) {
  Scope s = Scope::NewRootScope();
  auto v = Variable(s.WithOpName("v").WithDevice("/device:ACCEL:0"), PartialTensorShape({4}));
  auto w = Variable(s.WithOpName("w").WithDevice("/job:worker/task:0"), PartialTensorShape({4}));
  auto u = ApplyGradientDescent(s.WithOpName("u").WithDevice("/job:worker/task:1"), w, 0.1f,
                                Tensor::FromVector<float>({1, 1, 1, 1}));
  ASSERT_TRUE(s.ok());
  PlacerOptions opt;
  opt.allow_soft_placement = true;
  auto r = Place(s.graph(), Devices(), opt);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_NE(v.node->assigned_device().find("/device:CPU:"), std::string::npos);
  EXPECT_EQ(w.node->assigned_device(), u.node->assigned_device());
  EXPECT_NE(w.node->assigned_device().find("/device:CPU:"), std::string::npos);
  EXPECT_EQ(r->soft_placed_nodes, (std::vector<std::string>{"v", "w", "u"}));

  // Only an accelerator: a Variable has no kernel anywhere, soft or not.
  Scope s2 = Scope::NewRootScope();
  Variable(s2.WithOpName("v"), PartialTensorShape({4}));
  auto r2 = Place(s2.graph(), {Dev(0, "ACCEL", 0)}, opt);
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.status().message().find("no device type in the list has kernels for every member"),
            std::string::npos)
      << r2.status().ToString();
}

TEST(Placer, ColocatedGroupsNeedKernelsForAll) {
  // MatMul has an accelerator kernel, Relu does not: colocated, they cannot use it.
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT, PartialTensorShape({4, 4}));
  auto mm = MatMul(s.WithOpName("mm").WithDevice("/device:ACCEL:0"), x, x);
  Relu(s.WithOpName("relu").ColocateWith(mm), mm);
  ASSERT_TRUE(s.ok());
  auto r = Place(s.graph(), Devices());
  ASSERT_FALSE(r.ok());
  const std::string& m = r.status().message();
  // (Where CUDA is built, the kernel lists go on with GPU.)
  EXPECT_NE(m.find("'relu' (op Relu): requested device none; kernels for CPU"), std::string::npos) << m;
  EXPECT_NE(m.find("colocated with 'mm' by _class"), std::string::npos) << m;
  EXPECT_NE(m.find("'mm' (op MatMul): requested device '/device:ACCEL:0'; kernels for ACCEL, CPU"),
            std::string::npos) << m;
  EXPECT_NE(m.find(Dev(0, "ACCEL", 0) + ": no ACCEL kernel for 'relu' (Relu)"), std::string::npos) << m;
}

TEST(Placer, PreAssignedNodesKeepTheirDeviceAndBringTheirGroup) {
  Scope s = Scope::NewRootScope();
  auto v = Variable(s.WithOpName("v"), PartialTensorShape({4}));
  auto init = Assign(s.WithOpName("init"), v, Tensor::FromVector<float>({1, 2, 3, 4}));
  ASSERT_TRUE(s.ok());
  v.node->set_assigned_device(Dev(1, "CPU", 0));
  ASSERT_TRUE(Place(s.graph(), Devices()).ok());
  EXPECT_EQ(v.node->assigned_device(), Dev(1, "CPU", 0));
  EXPECT_EQ(init.node->assigned_device(), Dev(1, "CPU", 0));

  init.node->set_assigned_device(Dev(1, "CPU", 1));
  auto r = Place(s.graph(), Devices());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("colocation group is already assigned"), std::string::npos);
  v.node->set_assigned_device("/job:elsewhere/replica:0/task:0/device:CPU:0");
  EXPECT_FALSE(Place(s.graph(), Devices()).ok());
}

TEST(Placer, BadInputs) {
  Scope s = Scope::NewRootScope();
  Placeholder(s.WithOpName("x"), DT_FLOAT);
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(Place(s.graph(), {}).ok());
  EXPECT_FALSE(Place(s.graph(), {"/device:CPU:0"}).ok());  // not a full name
  EXPECT_FALSE(Place(s.graph(), {Dev(0, "CPU", 0), Dev(0, "cpu", 0)}).ok());  // the same one
  Scope s2 = Scope::NewRootScope();
  Placeholder(s2.WithOpName("bad").WithDevice("/device:"), DT_FLOAT);
  auto r = Place(s2.graph(), Devices());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("node 'bad' (op 'Placeholder')"), std::string::npos)
      << r.status().ToString();
  for (Node* n : s2.graph()->nodes()) EXPECT_TRUE(n->assigned_device().empty());
}

TEST(Placer, ColocationWithAPrunedNodeIsIgnored) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  ASSERT_TRUE(s.ok());
  NodeDef def = x.node->def();
  def.name = "y";
  def.attrs["_class"] = AttrValue::StringList({"loc:@gone", "not-a-location"});
  ASSERT_TRUE(s.graph()->AddNode(def).ok());
  ASSERT_TRUE(Place(s.graph(), Devices()).ok());
}

}  // namespace
}  // namespace tact

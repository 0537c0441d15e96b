// A Session over several CPU devices of one process (paper 3.2): the
// master places and partitions each Run, every partition runs in its own
// actor, and tensors cross devices through Send/Recv. Whatever the
// placement, the numbers are the ones a single device computes.
#include <gtest/gtest.h>

#include <cstring>
#include <set>

#include "actors/session.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {

std::string Cpu(int i) { return "/job:localhost/replica:0/task:0/device:CPU:" + std::to_string(i); }

std::unique_ptr<Session> NewSession(const GraphDef& def, int devices, SessionOptions o = {}) {
  o.device_count = {{"CPU", devices}};
  auto session = Session::Create(o);
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  EXPECT_TRUE((*session)->Extend(def).ok());
  return std::move(session).value();
}

// The devices on which the step's nodes ran.
std::set<std::string> DevicesUsed(const RunMetadata& md) {
  std::set<std::string> used;
  for (const NodeExecStats& n : md.step_stats.nodes()) used.insert(n.device);
  return used;
}

Tensor Iota(const TensorShape& shape, float scale) {
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = scale * static_cast<float>(i % 17 - 8);
  return t;
}

bool BitwiseEqual(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i].BitwiseEqual(b[i])) return false;
  }
  return true;
}

// Two dense layers, the first pinned to CPU:1 and the second to CPU:2
// (model parallelism); the input is fed on CPU:0.
GraphDef ModelParallel() {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  Scope l1 = s.WithDevice("/device:CPU:1");
  auto h = Relu(l1.WithOpName("h"), MatMul(l1, x, Const(l1, Iota({8, 16}, 0.25f))));
  Scope l2 = s.WithDevice("/device:CPU:2");
  Tanh(l2.WithOpName("y"), MatMul(l2, h, Const(l2, Iota({16, 4}, 0.125f))));
  return *s.ToGraphDef();
}

TEST(MultiDeviceTest, ModelParallelLayersComputeWhatOneDeviceComputes) {
  const Tensor x = Iota({5, 8}, 0.5f);
  auto one = NewSession(ModelParallel(), 3, {});
  // On a one-device session the pins cannot hold: soft placement drops them.
  SessionOptions soft;
  soft.allow_soft_placement = true;
  auto single = NewSession(ModelParallel(), 1, soft);
  RunMetadata md;
  auto split = one->Run({{"x", x}}, {"y", "h"}, {}, &md);
  auto whole = single->Run({{"x", x}}, {"y", "h"}, {});
  ASSERT_TRUE(split.ok()) << split.status().ToString();
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_TRUE(BitwiseEqual(*split, *whole));
  EXPECT_EQ(DevicesUsed(md), (std::set<std::string>{Cpu(0), Cpu(1), Cpu(2)}));
  // x crosses from CPU:0 (where the unpinned feed enters) to CPU:1, and h
  // from CPU:1 to CPU:2 (for y); the fetches leave from the devices their
  // nodes are pinned to, so nothing crosses to CPU:0.
  std::vector<std::string> sends;
  for (const NodeExecStats& n : md.step_stats.nodes()) {
    if (n.node_name.find("/_send_") != std::string::npos) sends.push_back(n.node_name + " on " + n.device);
  }
  EXPECT_EQ(sends.size(), 2u) << ::testing::PrintToString(sends);
}

// Data parallelism (paper 7): two towers compute the gradient of the same
// model on the two halves of a batch, on CPU:1 and CPU:2; CPU:0 averages.
GraphDef DataParallel() {
  Scope s = Scope::NewRootScope();
  auto w = Const(s.WithOpName("w"), Iota({6, 3}, 0.1f));
  std::vector<Output> grads;
  for (int t = 0; t < 2; ++t) {
    Scope tower = s.WithDevice("/device:CPU:" + std::to_string(t + 1));
    std::string name = "x";  // appended: GCC 12 warns (-Wrestrict, wrongly) on "x" + to_string
    name += std::to_string(t);
    auto x = Placeholder(s.WithOpName(name), DT_FLOAT);
    auto y = Tanh(tower, MatMul(tower, x, w));
    // d/dw of sum(tanh(x w)) = x^T (1 - tanh^2)
    auto dy = Sub(tower, 1.0f, Square(tower, y));
    grads.push_back(MatMul(tower, x, dy, /*transpose_a=*/true));
  }
  Scope avg = s.WithDevice("/device:CPU:0");
  Mul(avg.WithOpName("grad"), AddN(avg, {grads[0], grads[1]}), 0.5f);
  return *s.ToGraphDef();
}

TEST(MultiDeviceTest, DataParallelTowersAverageToTheOneDeviceGradient) {
  const Tensor x0 = Iota({4, 6}, 0.3f), x1 = Iota({4, 6}, -0.2f);
  auto four = NewSession(DataParallel(), 4, {});
  SessionOptions soft;
  soft.allow_soft_placement = true;
  auto single = NewSession(DataParallel(), 1, soft);
  RunMetadata md;
  auto split = four->Run({{"x0", x0}, {"x1", x1}}, {"grad"}, {}, &md);
  auto whole = single->Run({{"x0", x0}, {"x1", x1}}, {"grad"}, {});
  ASSERT_TRUE(split.ok()) << split.status().ToString();
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_TRUE(BitwiseEqual(*split, *whole));
  const std::set<std::string> used = DevicesUsed(md);
  EXPECT_TRUE(used.count(Cpu(1)) && used.count(Cpu(2))) << "both towers ran where pinned";
  // Repeated Runs reuse the registered partitions and stay right.
  for (int i = 0; i < 20; ++i) {
    auto again = four->Run({{"x0", x0}, {"x1", x1}}, {"grad"}, {});
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    EXPECT_TRUE(BitwiseEqual(*again, *whole));
  }
}

TEST(MultiDeviceTest, AnImpossibleConstraintNamesTheNodeAndTheDevicesThatExist) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  Neg(s.WithDevice("/device:CPU:7").WithOpName("far"), x);
  Neg(s.WithOpName("near"), x);
  auto session = NewSession(*s.ToGraphDef(), 2);
  auto bad = session->Run({{"x", Tensor::Scalar<float>(2)}}, {"far"}, {});
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument) << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("far"), std::string::npos) << bad.status().message();
  EXPECT_NE(bad.status().message().find("/device:CPU:7"), std::string::npos);
  EXPECT_NE(bad.status().message().find(Cpu(1)), std::string::npos) << "lists the devices";
  // The session stays usable.
  auto ok = session->Run({{"x", Tensor::Scalar<float>(2)}}, {"near"}, {});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ((*ok)[0].data<float>()[0], -2.0f);
}

// Inside one process a tensor crosses devices by reference: fed on CPU:0,
// passed through an Identity on CPU:1 and fetched back on CPU:0, it is
// still the fed buffer.
TEST(MultiDeviceTest, CrossingDevicesInOneProcessCopiesNoBytes) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  Identity(s.WithDevice("/device:CPU:1").WithOpName("there"), x);
  auto session = NewSession(*s.ToGraphDef(), 2);
  const Tensor big = Iota({1 << 20}, 1.0f);
  RunMetadata md;
  auto out = session->Run({{"x", big}}, {"there"}, {}, &md);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(DevicesUsed(md).count(Cpu(1)));
  EXPECT_EQ((*out)[0].raw_data(), big.raw_data());
}

// Paper 5.5: with lossy transfer, a float32 crossing devices keeps only
// its upper 16 bits.
TEST(MultiDeviceTest, LossyTransferKeepsTheUpperSixteenBitsAcrossDevices) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  Identity(s.WithDevice("/device:CPU:1").WithOpName("moved"), x);
  SessionOptions lossy;
  lossy.lossy_float_transfer = true;
  auto session = NewSession(*s.ToGraphDef(), 2, lossy);
  const std::vector<float> values = {1.0f / 3.0f, -123.456f, 1e-40f, 3.0e38f};
  auto out = session->Run({{"x", Tensor::FromVector<float>(values)}}, {"moved"}, {});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  for (size_t i = 0; i < values.size(); ++i) {
    uint32_t in_bits, out_bits;
    std::memcpy(&in_bits, &values[i], 4);
    std::memcpy(&out_bits, &(*out)[0].data<float>()[i], 4);
    EXPECT_EQ(out_bits, in_bits & 0xffff0000u) << values[i];
  }
}

}  // namespace
}  // namespace tact

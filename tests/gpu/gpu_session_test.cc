// Sessions with a GPU beside the CPU: what a user runs, end to end through
// placement, Send/Recv across host and device memory, feeds and fetches.
// The numbers must be the CPU's, to float rounding. Skipped without a GPU.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "actors/session.h"
#include "apps/train/trainer.h"
#include "graph/gradients/gradients.h"
#include "graph/ops/all_ops.h"
#include "tests/gpu/gpu_test_util.h"
#include "tests/kernels/kernel_test_util.h"

namespace tact {
namespace {

std::unique_ptr<Session> NewSession(const GraphDef& def, bool with_gpu) {
  SessionOptions o;
  o.device_count = {{"CPU", 1}};
  if (with_gpu) o.device_count["GPU"] = 1;
  o.allow_soft_placement = true;  // the CPU-only twin drops the GPU pins
  auto session = Session::Create(o);
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  EXPECT_TRUE((*session)->Extend(def).ok());
  return std::move(session).value();
}

void ExpectNear(const Tensor& got, const Tensor& want, double tol) {
  test::ExpectClose(got, want.shape(), test::ToDoubles(want), tol, tol);
}

// x (fed on the host) -> a layer pinned to the GPU -> a layer the placer
// chooses -> fetched on the host.
GraphDef TwoLayers() {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  Scope gpu = s.WithDevice("/device:GPU:0");
  auto h = Relu(gpu.WithOpName("h"), MatMul(gpu, x, Const(gpu, test::Random<float>({64, 128}, 1))));
  Tanh(s.WithOpName("y"), MatMul(s, h, Const(s, test::Random<float>({128, 10}, 2))));
  return *s.ToGraphDef();
}

TEST(GpuSessionTest, FeedsCrossToTheGpuAndFetchesComeBack) {
  TACT_REQUIRE_GPU();
  const Tensor x = test::Random<float>({32, 64}, 3);
  auto with_gpu = NewSession(TwoLayers(), true);
  auto cpu_only = NewSession(TwoLayers(), false);
  RunMetadata md;
  auto got = with_gpu->Run({{"x", x}}, {"y", "h"}, {}, &md);
  auto want = cpu_only->Run({{"x", x}}, {"y", "h"}, {});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  ExpectNear((*got)[0], (*want)[0], 1e-4);
  ExpectNear((*got)[1], (*want)[1], 1e-4);
  std::set<std::string> devices;
  for (const NodeExecStats& n : md.step_stats.nodes())
    devices.insert(n.device.substr(n.device.rfind('/') + 1));
  EXPECT_TRUE(devices.count("device:GPU:0")) << ::testing::PrintToString(devices);
  // The session stays usable after a bad feed.
  auto bad = with_gpu->Run({{"x", test::Random<float>({32, 63}, 4)}}, {"y"}, {});
  EXPECT_FALSE(bad.ok());
  EXPECT_TRUE(with_gpu->Run({{"x", x}}, {"y"}, {}).ok());
}

// Plain gradient descent on a variable that lives on the GPU.
GraphDef Regression(Output* loss_out = nullptr) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  auto t = Placeholder(s.WithOpName("t"), DT_FLOAT);
  Scope gpu = s.WithDevice("/device:GPU:0");
  auto w = Variable(gpu.WithOpName("w"), PartialTensorShape({16, 4}));
  Assign(gpu.WithOpName("init"), w, Const(s, test::Random<float>({16, 4}, 5, -0.5, 0.5)));
  auto diff = Sub(s, MatMul(s, x, w), t);
  auto loss = Mean(s.WithOpName("loss"), Square(s, diff), Const(s, Tensor::FromVector<int32_t>({0, 1})));
  std::vector<Output> grads;
  EXPECT_TRUE(AddSymbolicGradients(s.NewSubScope("gradients"), {loss}, {w}, {}, &grads).ok());
  ApplyGradientDescent(gpu.WithOpName("train"), w, 0.05f, grads[0]);
  if (loss_out != nullptr) *loss_out = loss;
  return *s.ToGraphDef();
}

TEST(GpuSessionTest, TrainingAVariableOnTheGpuFollowsTheCpu) {
  TACT_REQUIRE_GPU();
  auto with_gpu = NewSession(Regression(), true);
  auto cpu_only = NewSession(Regression(), false);
  for (auto* s : {with_gpu.get(), cpu_only.get()}) ASSERT_TRUE(s->Run({}, {}, {"init"}).ok());
  for (int step = 0; step < 20; ++step) {
    const Tensor x = test::Random<float>({8, 16}, 100 + step);
    const Tensor t = test::Random<float>({8, 4}, 200 + step);
    auto a = with_gpu->Run({{"x", x}, {"t", t}}, {"loss"}, {"train"});
    auto b = cpu_only->Run({{"x", x}, {"t", t}}, {"loss"}, {"train"});
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    ExpectNear((*a)[0], (*b)[0], 1e-4);
  }
  auto wa = with_gpu->Run({}, {"w"}, {});
  auto wb = cpu_only->Run({}, {"w"}, {});
  ASSERT_TRUE(wa.ok() && wb.ok());
  ExpectNear((*wa)[0], (*wb)[0], 1e-4);
}

// `tact train --devices cpu:1,gpu:1` as the trainer runs it: the cnn with
// Adam, the defaults a user gets, on part of the data.
TEST(GpuTrainerTest, TheCnnTrainsOnTheGpuLikeOnTheCpu) {
  TACT_REQUIRE_GPU();
  if (!std::filesystem::exists(std::string(apps::kDefaultDataDir) + "/train-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "no data set at " << apps::kDefaultDataDir;
  }
  apps::TrainOptions opt;
  opt.model.name = "cnn";
  opt.data.train_limit = 3000;
  opt.data.test_limit = 1000;
  opt.data.epochs = 2;
  auto cpu = apps::Train(opt);
  opt.cluster.gpus = 1;
  auto gpu = apps::Train(opt);
  ASSERT_TRUE(cpu.ok()) << cpu.status().ToString();
  ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();
  EXPECT_EQ(gpu->steps, cpu->steps);
  // Float rounding differs (cuDNN's and cuBLAS's sums), so the runs drift
  // apart a little; they learn the same.
  EXPECT_NEAR(gpu->train_loss, cpu->train_loss, 0.05 * cpu->train_loss);
  EXPECT_NEAR(gpu->test_accuracy, cpu->test_accuracy, 0.03);
  EXPECT_GT(gpu->test_accuracy, 0.77);
}

}  // namespace
}  // namespace tact

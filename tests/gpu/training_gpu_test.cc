// The GPU kernels of ApplyGradientDescent, ApplyMomentum (plain and
// Nesterov), ApplyAdam, ApplyRMSProp and ApplyAdagrad(V2) against the CPU
// kernels over three steps, on Vars whose tensors live in device memory,
// as a GPU Variable's do; and copy-on-write: a value read before the
// update keeps what it read.
// Skipped without a GPU.
#include <gtest/gtest.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/variable.h"
#include "tests/gpu/gpu_test_util.h"
#include "tests/kernels/kernel_test_util.h"

namespace tact {
namespace {

// `t` (device memory) copied to the host, after the work queued so far.
Tensor ToHost(const Tensor& t) {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  Tensor out;
  test::GpuTestDevice()->CopyDeviceToHost(t, [&](const Status& s, Tensor h) {
    EXPECT_TRUE(s.ok()) << s.ToString();
    std::lock_guard<std::mutex> lock(mu);
    out = std::move(h);
    done = true;
    cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return done; });
  return out;
}

// The same initial value as a CPU Var and as a GPU Var.
struct VarPair {
  std::shared_ptr<Var> cpu, gpu;
};

VarPair MakeVars(const std::string& name, const Tensor& value) {
  VarPair p;
  const PartialTensorShape shape(value.shape().dim_sizes());
  p.cpu = std::make_shared<Var>(name, value.dtype(), shape);
  p.gpu = std::make_shared<Var>(name, value.dtype(), shape);
  *p.cpu->tensor() = value.DeepCopy();
  StatusOr<Tensor> on_device = test::GpuTestDevice()->CopyHostToDevice(value);
  EXPECT_TRUE(on_device.ok()) << on_device.status().ToString();
  *p.gpu->tensor() = *on_device;
  return p;
}

// Runs `op` with the slots as ref inputs followed by `rest` on both
// devices, three times, and compares every slot after each step.
template <typename T>
void ExpectUpdatesMatch(const std::string& op, std::vector<VarPair> slots,
                        const std::vector<std::vector<Tensor>>& rest_per_step, AttrMap attrs,
                        double rtol) {
  attrs["T"] = AttrValue::Type(DataTypeToEnum<T>::value);
  for (size_t step = 0; step < rest_per_step.size(); ++step) {
    SCOPED_TRACE(op + " step " + std::to_string(step));
    std::vector<Tensor> cpu_in, gpu_in;
    for (const VarPair& s : slots) {
      cpu_in.push_back(MakeRefTensor(s.cpu));
      gpu_in.push_back(MakeRefTensor(s.gpu));
    }
    for (const Tensor& t : rest_per_step[step]) {
      cpu_in.push_back(t);
      gpu_in.push_back(t);
    }
    StatusOr<std::vector<Tensor>> cpu = test::RunOp(op, cpu_in, attrs);
    ASSERT_TRUE(cpu.ok()) << cpu.status().ToString();
    StatusOr<std::vector<Tensor>> gpu = test::RunOpOnGpu(op, gpu_in, attrs);
    ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();
    for (const VarPair& s : slots) {
      const Tensor& want = *s.cpu->tensor();
      test::ExpectClose(ToHost(*s.gpu->tensor()), want.shape(), test::ToDoubles(want), rtol,
                        rtol);
    }
  }
}

template <typename T>
class GpuTrainingTest : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(GpuTrainingTest, Types);

constexpr double kRtol = 1e-5;

TYPED_TEST(GpuTrainingTest, GradientDescentMatchesTheCpu) {
  TACT_REQUIRE_GPU();
  using T = TypeParam;
  for (const TensorShape& shape : {TensorShape({5}), TensorShape({1 << 20})}) {
    std::vector<std::vector<Tensor>> steps;
    for (int s = 0; s < 3; ++s) {
      steps.push_back({Tensor::Scalar<T>(T(0.1)), test::Random<T>(shape, 10 + s)});
    }
    ExpectUpdatesMatch<T>("ApplyGradientDescent", {MakeVars("var", test::Random<T>(shape, 1))},
                          steps, {}, kRtol);
  }
}

TYPED_TEST(GpuTrainingTest, MomentumPlainAndNesterovMatchTheCpu) {
  TACT_REQUIRE_GPU();
  using T = TypeParam;
  for (bool nesterov : {false, true}) {
    for (const TensorShape& shape : {TensorShape({5}), TensorShape({1 << 20})}) {
      std::vector<std::vector<Tensor>> steps;
      for (int s = 0; s < 3; ++s) {
        steps.push_back({Tensor::Scalar<T>(T(0.05)), test::Random<T>(shape, 20 + s),
                         Tensor::Scalar<T>(T(0.9))});
      }
      ExpectUpdatesMatch<T>(
          "ApplyMomentum",
          {MakeVars("var", test::Random<T>(shape, 2)), MakeVars("accum", test::Random<T>(shape, 3))},
          steps, {{"use_nesterov", AttrValue::Bool(nesterov)}}, kRtol);
    }
  }
}

TYPED_TEST(GpuTrainingTest, AdamMatchesTheCpu) {
  TACT_REQUIRE_GPU();
  using T = TypeParam;
  for (const TensorShape& shape : {TensorShape({5}), TensorShape({1 << 20})}) {
    std::vector<std::vector<Tensor>> steps;
    double p1 = 1, p2 = 1;
    for (int s = 0; s < 3; ++s) {
      p1 *= 0.9;
      p2 *= 0.999;
      steps.push_back({Tensor::Scalar<T>(T(p1)), Tensor::Scalar<T>(T(p2)),
                       Tensor::Scalar<T>(T(0.01)), Tensor::Scalar<T>(T(0.9)),
                       Tensor::Scalar<T>(T(0.999)), Tensor::Scalar<T>(T(1e-7)),
                       test::Random<T>(shape, 30 + s)});
    }
    const Tensor zeros = Tensor::FromVector<T>(std::vector<T>(shape.num_elements(), T(0)), shape);
    ExpectUpdatesMatch<T>("ApplyAdam",
                          {MakeVars("var", test::Random<T>(shape, 5)), MakeVars("m", zeros),
                           MakeVars("v", zeros)},
                          steps, {}, 1e-4);
  }
}

TYPED_TEST(GpuTrainingTest, RMSPropMatchesTheCpu) {
  TACT_REQUIRE_GPU();
  using T = TypeParam;
  for (const TensorShape& shape : {TensorShape({5}), TensorShape({1 << 20})}) {
    for (double momentum : {0.0, 0.9}) {
      std::vector<std::vector<Tensor>> steps;
      for (int s = 0; s < 3; ++s) {
        steps.push_back({Tensor::Scalar<T>(T(0.01)), Tensor::Scalar<T>(T(0.9)),
                         Tensor::Scalar<T>(T(momentum)), Tensor::Scalar<T>(T(1e-7)),
                         test::Random<T>(shape, 40 + s)});
      }
      const Tensor zeros =
          Tensor::FromVector<T>(std::vector<T>(shape.num_elements(), T(0)), shape);
      ExpectUpdatesMatch<T>("ApplyRMSProp",
                            {MakeVars("var", test::Random<T>(shape, 6)), MakeVars("ms", zeros),
                             MakeVars("mom", test::Random<T>(shape, 7))},
                            steps, {}, 1e-4);
    }
  }
}

TYPED_TEST(GpuTrainingTest, AdagradAndAdagradV2MatchTheCpu) {
  TACT_REQUIRE_GPU();
  using T = TypeParam;
  for (const TensorShape& shape : {TensorShape({5}), TensorShape({1 << 20})}) {
    for (bool v2 : {false, true}) {
      for (bool update_slots : {true, false}) {
        std::vector<std::vector<Tensor>> steps;
        for (int s = 0; s < 3; ++s) {
          std::vector<Tensor> inputs = {Tensor::Scalar<T>(T(0.05))};
          if (v2) inputs.push_back(Tensor::Scalar<T>(T(1e-7)));
          inputs.push_back(test::Random<T>(shape, 50 + s));
          steps.push_back(std::move(inputs));
        }
        const Tensor start =
            Tensor::FromVector<T>(std::vector<T>(shape.num_elements(), T(0.1)), shape);
        ExpectUpdatesMatch<T>(v2 ? "ApplyAdagradV2" : "ApplyAdagrad",
                              {MakeVars("var", test::Random<T>(shape, 8)),
                               MakeVars("accum", start)},
                              steps, {{"update_slots", AttrValue::Bool(update_slots)}}, 1e-4);
      }
    }
  }
}

TEST(GpuTrainingCopyTest, AValueReadBeforeTheUpdateKeepsWhatItRead) {
  TACT_REQUIRE_GPU();
  const Tensor init = Tensor::FromVector<float>({1, 2, 3});
  VarPair var = MakeVars("var", init);
  const Tensor read = *var.gpu->tensor();  // shares the Var's buffer, as a read in the step does
  StatusOr<std::vector<Tensor>> out = test::RunOpOnGpu(
      "ApplyGradientDescent",
      {MakeRefTensor(var.gpu), Tensor::Scalar<float>(1), Tensor::FromVector<float>({1, 1, 1})},
      {{"T", AttrValue::Type(DT_FLOAT)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  test::ExpectClose(ToHost(read), init.shape(), {1, 2, 3});
  test::ExpectClose(ToHost(*var.gpu->tensor()), init.shape(), {0, 1, 2});
}

TEST(GpuTrainingCopyTest, AGradientOfAnotherShapeIsAnErrorNamingTheVariable) {
  TACT_REQUIRE_GPU();
  VarPair var = MakeVars("weights", Tensor::FromVector<float>({1, 2, 3}));
  StatusOr<std::vector<Tensor>> out = test::RunOpOnGpu(
      "ApplyGradientDescent",
      {MakeRefTensor(var.gpu), Tensor::Scalar<float>(1), Tensor::FromVector<float>({1, 1})},
      {{"T", AttrValue::Type(DT_FLOAT)}});
  ASSERT_FALSE(out.ok());
  test::ExpectError(out.status(), Code::kInvalidArgument, "weights");
}

}  // namespace
}  // namespace tact

// The fused optimizer kernels against the formulas written as plain double
// loops, over several steps, and CheckNumerics.
#include <cmath>
#include <limits>

#include "graph/ops/all_ops.h"
#include "tests/train/train_test_util.h"

namespace tact {
namespace {

using test::AsDoubles;
using test::ExpectNear;

template <typename T>
Tensor Vec(const std::vector<double>& v) {
  std::vector<T> t(v.begin(), v.end());
  return Tensor::FromVector<T>(t);
}

const std::vector<double> kVar0 = {1.0, -2.0, 0.5, 3.0, -0.25};
const std::vector<double> kAccum0 = {0.1, 0.2, -0.3, 0.0, 0.5};
const std::vector<double> kGrad = {0.3, -1.5, 2.0, 0.01, -0.7};

template <typename T>
class TrainingOpsTest : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(TrainingOpsTest, Types);

TYPED_TEST(TrainingOpsTest, GradientDescentOverThreeSteps) {
  using T = TypeParam;
  const DataType dt = DataTypeToEnum<T>::value;
  Scope s = Scope::NewRootScope();
  auto var = Variable(s.WithOpName("var"), {5}, dt);
  Assign(s.WithOpName("init"), var, Vec<T>(kVar0));
  auto g = Placeholder(s.WithOpName("g"), dt);
  ApplyGradientDescent(s.WithOpName("apply"), var, Input(Tensor::Scalar<T>(T(0.1))), g);
  Identity(s.WithOpName("read"), var);
  auto session = test::NewSession(s);
  ASSERT_TRUE(session->Run({}, {}, {"init"}).ok());
  std::vector<double> want = kVar0;
  for (int step = 0; step < 3; ++step) {
    std::vector<double> grad(5);
    for (int i = 0; i < 5; ++i) grad[i] = kGrad[i] * (step + 1);
    auto out = session->Run({{"g", Vec<T>(grad)}}, {}, {"apply"});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    for (int i = 0; i < 5; ++i) want[i] -= static_cast<double>(T(0.1)) * grad[i];
    ExpectNear(AsDoubles<T>(test::Fetch(session.get(), "read")), want, 1e-6);
  }
}

TYPED_TEST(TrainingOpsTest, MomentumPlainAndNesterovOverThreeSteps) {
  using T = TypeParam;
  const DataType dt = DataTypeToEnum<T>::value;
  for (bool nesterov : {false, true}) {
    Scope s = Scope::NewRootScope();
    auto var = Variable(s.WithOpName("var"), {5}, dt);
    auto accum = Variable(s.WithOpName("accum"), {5}, dt);
    Assign(s.WithOpName("init_var"), var, Vec<T>(kVar0));
    Assign(s.WithOpName("init_accum"), accum, Vec<T>(kAccum0));
    auto g = Placeholder(s.WithOpName("g"), dt);
    ApplyMomentum(s.WithOpName("apply"), var, accum, Input(Tensor::Scalar<T>(T(0.05))), g,
                  Input(Tensor::Scalar<T>(T(0.9))), false, nesterov);
    Identity(s.WithOpName("read_var"), var);
    Identity(s.WithOpName("read_accum"), accum);
    auto session = test::NewSession(s);
    ASSERT_TRUE(session->Run({}, {}, {"init_var", "init_accum"}).ok());
    std::vector<double> v = kVar0, a = kAccum0;
    const double lr = static_cast<double>(T(0.05)), mom = static_cast<double>(T(0.9));
    for (int step = 0; step < 3; ++step) {
      std::vector<double> grad(5);
      for (int i = 0; i < 5; ++i) grad[i] = kGrad[i] - 0.1 * step;
      auto out = session->Run({{"g", Vec<T>(grad)}}, {}, {"apply"});
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      for (int i = 0; i < 5; ++i) {
        a[i] = a[i] * mom + grad[i];
        v[i] -= nesterov ? lr * (grad[i] + mom * a[i]) : lr * a[i];
      }
      ExpectNear(AsDoubles<T>(test::Fetch(session.get(), "read_var")), v, 1e-5);
      ExpectNear(AsDoubles<T>(test::Fetch(session.get(), "read_accum")), a, 1e-5);
    }
  }
}

TYPED_TEST(TrainingOpsTest, AdamOverThreeSteps) {
  using T = TypeParam;
  const DataType dt = DataTypeToEnum<T>::value;
  Scope s = Scope::NewRootScope();
  auto var = Variable(s.WithOpName("var"), {5}, dt);
  auto m = Variable(s.WithOpName("m"), {5}, dt);
  auto v = Variable(s.WithOpName("v"), {5}, dt);
  Assign(s.WithOpName("init_var"), var, Vec<T>(kVar0));
  Assign(s.WithOpName("init_m"), m, Vec<T>({0, 0, 0, 0, 0}));
  Assign(s.WithOpName("init_v"), v, Vec<T>({0, 0, 0, 0, 0}));
  auto g = Placeholder(s.WithOpName("g"), dt);
  auto b1p = Placeholder(s.WithOpName("b1p"), dt);
  auto b2p = Placeholder(s.WithOpName("b2p"), dt);
  auto sc = [](double x) { return Input(Tensor::Scalar<T>(T(x))); };
  ApplyAdam(s.WithOpName("apply"), var, m, v, b1p, b2p, sc(0.01), sc(0.9), sc(0.999), sc(1e-7), g);
  Identity(s.WithOpName("read_var"), var);
  Identity(s.WithOpName("read_m"), m);
  Identity(s.WithOpName("read_v"), v);
  auto session = test::NewSession(s);
  ASSERT_TRUE(session->Run({}, {}, {"init_var", "init_m", "init_v"}).ok());
  std::vector<double> w = kVar0, mm(5, 0.0), vv(5, 0.0);
  const double lr = static_cast<double>(T(0.01)), b1 = static_cast<double>(T(0.9));
  const double b2 = static_cast<double>(T(0.999)), eps = static_cast<double>(T(1e-7));
  double p1 = 1, p2 = 1;
  for (int step = 0; step < 3; ++step) {
    p1 *= b1;
    p2 *= b2;
    std::vector<double> grad(5);
    for (int i = 0; i < 5; ++i) grad[i] = kGrad[i] * (1 + step);
    auto out = session->Run(
        {{"g", Vec<T>(grad)}, {"b1p", Tensor::Scalar<T>(T(p1))}, {"b2p", Tensor::Scalar<T>(T(p2))}},
        {}, {"apply"});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    const double lr_t = lr * std::sqrt(1 - p2) / (1 - p1);
    for (int i = 0; i < 5; ++i) {
      mm[i] = b1 * mm[i] + (1 - b1) * grad[i];
      vv[i] = b2 * vv[i] + (1 - b2) * grad[i] * grad[i];
      w[i] -= lr_t * mm[i] / (std::sqrt(vv[i]) + eps);
    }
    ExpectNear(AsDoubles<T>(test::Fetch(session.get(), "read_var")), w, 1e-5);
    ExpectNear(AsDoubles<T>(test::Fetch(session.get(), "read_m")), mm, 1e-5);
    ExpectNear(AsDoubles<T>(test::Fetch(session.get(), "read_v")), vv, 1e-4);
  }
}

TYPED_TEST(TrainingOpsTest, RMSPropOverThreeSteps) {
  using T = TypeParam;
  const DataType dt = DataTypeToEnum<T>::value;
  for (double momentum : {0.0, 0.9}) {
    Scope s = Scope::NewRootScope();
    auto var = Variable(s.WithOpName("var"), {5}, dt);
    auto ms = Variable(s.WithOpName("ms"), {5}, dt);
    auto mom = Variable(s.WithOpName("mom"), {5}, dt);
    Assign(s.WithOpName("init_var"), var, Vec<T>(kVar0));
    Assign(s.WithOpName("init_ms"), ms, Vec<T>({0, 0.5, 1, 0, 2}));
    Assign(s.WithOpName("init_mom"), mom, Vec<T>(kAccum0));
    auto g = Placeholder(s.WithOpName("g"), dt);
    auto sc = [](double x) { return Input(Tensor::Scalar<T>(T(x))); };
    // An epsilon this large tells inside the square root from outside.
    ApplyRMSProp(s.WithOpName("apply"), var, ms, mom, sc(0.01), sc(0.9), sc(momentum), sc(0.1), g);
    Identity(s.WithOpName("read_var"), var);
    Identity(s.WithOpName("read_ms"), ms);
    Identity(s.WithOpName("read_mom"), mom);
    auto session = test::NewSession(s);
    ASSERT_TRUE(session->Run({}, {}, {"init_var", "init_ms", "init_mom"}).ok());
    std::vector<double> w = kVar0, m2 = {0, 0.5, 1, 0, 2}, m1 = kAccum0;
    const double lr = static_cast<double>(T(0.01)), rho = static_cast<double>(T(0.9));
    const double mu = static_cast<double>(T(momentum)), eps = static_cast<double>(T(0.1));
    for (int step = 0; step < 3; ++step) {
      std::vector<double> grad(5);
      for (int i = 0; i < 5; ++i) grad[i] = kGrad[i] * (1 + step);
      auto out = session->Run({{"g", Vec<T>(grad)}}, {}, {"apply"});
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      for (int i = 0; i < 5; ++i) {
        m2[i] = rho * m2[i] + (1 - rho) * grad[i] * grad[i];
        m1[i] = mu * m1[i] + lr * grad[i] / std::sqrt(m2[i] + eps);
        w[i] -= m1[i];
      }
      ExpectNear(AsDoubles<T>(test::Fetch(session.get(), "read_var")), w, 1e-5);
      ExpectNear(AsDoubles<T>(test::Fetch(session.get(), "read_ms")), m2, 1e-5);
      ExpectNear(AsDoubles<T>(test::Fetch(session.get(), "read_mom")), m1, 1e-5);
    }
  }
}

// ApplyAdagrad (no epsilon) and ApplyAdagradV2, updating the accumulator
// or, with update_slots false, only reading it.
TYPED_TEST(TrainingOpsTest, AdagradAndAdagradV2OverThreeSteps) {
  using T = TypeParam;
  const DataType dt = DataTypeToEnum<T>::value;
  const std::vector<double> accum0 = {0.1, 0.2, 0.3, 0.1, 0.5};
  for (bool v2 : {false, true}) {
    for (bool update_slots : {true, false}) {
      Scope s = Scope::NewRootScope();
      auto var = Variable(s.WithOpName("var"), {5}, dt);
      auto accum = Variable(s.WithOpName("accum"), {5}, dt);
      Assign(s.WithOpName("init_var"), var, Vec<T>(kVar0));
      Assign(s.WithOpName("init_accum"), accum, Vec<T>(accum0));
      auto g = Placeholder(s.WithOpName("g"), dt);
      auto sc = [](double x) { return Input(Tensor::Scalar<T>(T(x))); };
      if (v2) {
        ApplyAdagradV2(s.WithOpName("apply"), var, accum, sc(0.05), sc(0.1), g, false,
                       update_slots);
      } else {
        ApplyAdagrad(s.WithOpName("apply"), var, accum, sc(0.05), g, false, update_slots);
      }
      Identity(s.WithOpName("read_var"), var);
      Identity(s.WithOpName("read_accum"), accum);
      auto session = test::NewSession(s);
      ASSERT_TRUE(session->Run({}, {}, {"init_var", "init_accum"}).ok());
      std::vector<double> w = kVar0, a = accum0;
      const double lr = static_cast<double>(T(0.05));
      const double eps = v2 ? static_cast<double>(T(0.1)) : 0.0;
      for (int step = 0; step < 3; ++step) {
        std::vector<double> grad(5);
        for (int i = 0; i < 5; ++i) grad[i] = kGrad[i] - 0.2 * step;
        auto out = session->Run({{"g", Vec<T>(grad)}}, {}, {"apply"});
        ASSERT_TRUE(out.ok()) << out.status().ToString();
        for (int i = 0; i < 5; ++i) {
          if (update_slots) a[i] += grad[i] * grad[i];
          w[i] -= lr * grad[i] / (std::sqrt(a[i]) + eps);
        }
        ExpectNear(AsDoubles<T>(test::Fetch(session.get(), "read_var")), w, 1e-5);
        ExpectNear(AsDoubles<T>(test::Fetch(session.get(), "read_accum")), a, 1e-5);
      }
    }
  }
}

// A tensor big enough for ParallelFor to split it: every element updated once.
TEST(TrainingOpsTest, GradientDescentOnALargeTensor) {
  const int64_t n = 1 << 20;
  Scope s = Scope::NewRootScope();
  auto var = Variable(s.WithOpName("var"), {n});
  Assign(s.WithOpName("init"), var, Fill(s, Input({static_cast<int32_t>(n)}), 1.0f));
  ApplyGradientDescent(s.WithOpName("apply"), var, 0.5f,
                       Fill(s, Input({static_cast<int32_t>(n)}), 2.0f));
  Identity(s.WithOpName("read"), var);
  auto session = test::NewSession(s);
  ASSERT_TRUE(session->Run({}, {}, {"init"}).ok());
  ASSERT_TRUE(session->Run({}, {}, {"apply"}).ok());
  Tensor t = test::Fetch(session.get(), "read");
  ASSERT_EQ(t.NumElements(), n);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(t.data<float>()[i], 0.0f) << i;
}

TEST(TrainingOpsTest, UninitializedAccumulatorNamesTheNode) {
  Scope s = Scope::NewRootScope();
  auto var = Variable(s.WithOpName("var"), {5});
  auto accum = Variable(s.WithOpName("accum"), {5});
  Assign(s.WithOpName("init_var"), var, Vec<float>(kVar0));
  ApplyMomentum(s.WithOpName("apply"), var, accum, 0.1f, Vec<float>(kGrad), 0.9f);
  auto session = test::NewSession(s);
  ASSERT_TRUE(session->Run({}, {}, {"init_var"}).ok());
  auto out = session->Run({}, {}, {"apply"});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kFailedPrecondition) << out.status().ToString();
  EXPECT_NE(out.status().message().find("'apply'"), std::string::npos) << out.status().ToString();
  EXPECT_NE(out.status().message().find("uninitialized value of 'accum'"), std::string::npos)
      << out.status().ToString();
}

TEST(TrainingOpsTest, UninitializedVarNamesTheNode) {
  Scope s = Scope::NewRootScope();
  auto var = Variable(s.WithOpName("var"), {5});
  ApplyGradientDescent(s.WithOpName("apply"), var, 0.1f, Vec<float>(kGrad));
  auto session = test::NewSession(s);
  auto out = session->Run({}, {}, {"apply"});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kFailedPrecondition);
  EXPECT_NE(out.status().message().find("'apply'"), std::string::npos) << out.status().ToString();
}

TEST(TrainingOpsTest, GradientOfTheWrongShapeNamesTheNode) {
  Scope s = Scope::NewRootScope();
  auto var = Variable(s.WithOpName("var"), {5});
  Assign(s.WithOpName("init"), var, Vec<float>(kVar0));
  auto g = Placeholder(s.WithOpName("g"), DT_FLOAT);
  ApplyGradientDescent(s.WithOpName("apply"), var, 0.1f, g);
  auto session = test::NewSession(s);
  ASSERT_TRUE(session->Run({}, {}, {"init"}).ok());
  auto out = session->Run({{"g", Vec<float>({1, 2, 3})}}, {}, {"apply"});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kInvalidArgument);
  EXPECT_NE(out.status().message().find("'apply'"), std::string::npos) << out.status().ToString();
  EXPECT_NE(out.status().message().find("[3]"), std::string::npos) << out.status().ToString();
}

TEST(TrainingOpsTest, AccumulatorOfTheWrongShapeIsAnError) {
  Scope s = Scope::NewRootScope();
  auto var = Variable(s.WithOpName("var"), {5});
  auto accum = Variable(s.WithOpName("accum"), PartialTensorShape::Unknown());
  Assign(s.WithOpName("init_var"), var, Vec<float>(kVar0));
  Assign(s.WithOpName("init_accum"), accum, Vec<float>({1, 2}), /*validate_shape=*/false);
  ApplyMomentum(s.WithOpName("apply"), var, accum, 0.1f, Vec<float>(kGrad), 0.9f);
  auto session = test::NewSession(s);
  ASSERT_TRUE(session->Run({}, {}, {"init_var", "init_accum"}).ok());
  auto out = session->Run({}, {}, {"apply"});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kInvalidArgument);
  EXPECT_NE(out.status().message().find("'apply'"), std::string::npos) << out.status().ToString();
  EXPECT_NE(out.status().message().find("accum"), std::string::npos) << out.status().ToString();
}

TEST(TrainingOpsTest, ShapeMismatchKnownAtBuildTimeFailsTheGraph) {
  Scope s = Scope::NewRootScope();
  auto var = Variable(s.WithOpName("var"), {5});
  ApplyGradientDescent(s.WithOpName("apply"), var, 0.1f, Vec<float>({1, 2}));
  EXPECT_FALSE(s.ok());
}

TEST(CheckNumericsTest, FiniteValuesPassThrough) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  CheckNumerics(s.WithOpName("check"), x, "x is bad");
  auto session = test::NewSession(s);
  Tensor t = test::Fetch(session.get(), "check", {{"x", Vec<float>({1, -2, 1e30})}});
  ExpectNear(AsDoubles<float>(t), {1, -2, 1e30}, 1e-7);
}

TEST(CheckNumericsTest, NaNAndInfFailTheStepNamingNodeAndMessage) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_DOUBLE);
  CheckNumerics(s.WithOpName("check"), x, "x is bad");
  auto session = test::NewSession(s);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    std::vector<double> values;
    const char* what;
  };
  for (const Case& c : {Case{{1, nan, 2}, "x is bad : Tensor had NaN values"},
                        Case{{-inf, 0}, "x is bad : Tensor had Inf values"},
                        Case{{inf, nan}, "x is bad : Tensor had NaN and Inf values"}}) {
    auto out = session->Run({{"x", Vec<double>(c.values)}}, {"check"}, {});
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), Code::kInvalidArgument);
    EXPECT_NE(out.status().message().find("'check'"), std::string::npos) << out.status().ToString();
    EXPECT_NE(out.status().message().find(c.what), std::string::npos) << out.status().ToString();
  }
}

// Past the vector width and in the scalar remainder: one bad element anywhere fails.
TEST(CheckNumericsTest, OneBadElementOfALongFloatTensor) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  CheckNumerics(s.WithOpName("check"), x, "long");
  auto session = test::NewSession(s);
  for (int64_t at : {0, 17, 1000, 1002}) {
    std::vector<float> v(1003, 1.5f);
    v[at] = at % 2 ? std::numeric_limits<float>::infinity() : std::nanf("");
    auto out = session->Run({{"x", Tensor::FromVector<float>(v)}}, {"check"}, {});
    ASSERT_FALSE(out.ok()) << at;
    EXPECT_NE(out.status().message().find(at % 2 ? "Tensor had Inf values" : "Tensor had NaN values"),
              std::string::npos)
        << out.status().ToString();
  }
  std::vector<float> big(1003, 3.0e38f);
  EXPECT_TRUE(session->Run({{"x", Tensor::FromVector<float>(big)}}, {"check"}, {}).ok());
}

}  // namespace
}  // namespace tact

// Sparse updates of a Variable's rows: ScatterAdd/Sub/Update and the
// SparseApply* kernels against plain double loops (repeated rows, an index
// out of range refused with nothing changed, rows too wide for one thread),
// and the optimizers' sparse path on an embedding: which ops it builds, the
// values it reaches against the dense path and against TensorFlow's sparse
// formulas, and the cases that must stay dense.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "graph/gradients/gradients.h"
#include "graph/nn/initializers.h"
#include "graph/nn/optimizers.h"
#include "graph/nn/variables.h"
#include "graph/ops/all_ops.h"
#include "tests/train/train_test_util.h"

namespace tact {
namespace {

using test::AsDoubles;
using test::ExpectNear;

constexpr int kRows = 5, kCols = 3;

std::vector<double> Var0() {
  std::vector<double> v(kRows * kCols);
  for (int i = 0; i < kRows * kCols; ++i) v[i] = 0.5 * i - 3.0;
  return v;
}

Tensor Floats(const std::vector<double>& v, const TensorShape& shape) {
  return Tensor::FromVector<float>(std::vector<float>(v.begin(), v.end()), shape);
}

// A [5, 3] float variable "var" initialised by "init" to Var0(), the op
// `make` builds on it (named "update") from placeholders "ids" (int64) and
// "updates", and "read".
template <typename Make>
std::unique_ptr<Session> ScatterSession(Make make) {
  Scope s = Scope::NewRootScope();
  auto var = Variable(s.WithOpName("var"), {kRows, kCols}, DT_FLOAT);
  Assign(s.WithOpName("init"), var, Floats(Var0(), {kRows, kCols}));
  auto ids = Placeholder(s.WithOpName("ids"), DT_INT64);
  auto updates = Placeholder(s.WithOpName("updates"), DT_FLOAT);
  make(s.WithOpName("update"), var, ids, updates);
  Identity(s.WithOpName("read"), var);
  auto session = test::NewSession(s);
  EXPECT_TRUE(session->Run({}, {}, {"init"}).ok());
  return session;
}

TEST(ScatterTest, AddSubAndUpdateMatchAPlainLoop) {
  // ids of rank 2 with row 4 picked twice and rows 2 and 3 never.
  const std::vector<int64_t> ids = {4, 1, 4, 0};
  std::vector<double> upd(ids.size() * kCols);
  for (size_t i = 0; i < upd.size(); ++i) upd[i] = 0.25 * static_cast<double>(i) + 1.0;
  for (const std::string op : {"ScatterAdd", "ScatterSub", "ScatterUpdate"}) {
    SCOPED_TRACE(op);
    auto session = ScatterSession([&](const Scope& s, Output var, Output i, Output u) {
      if (op == "ScatterAdd") ScatterAdd(s, var, i, u);
      if (op == "ScatterSub") ScatterSub(s, var, i, u);
      if (op == "ScatterUpdate") ScatterUpdate(s, var, i, u);
    });
    std::vector<double> want = Var0();
    for (size_t p = 0; p < ids.size(); ++p) {
      for (int j = 0; j < kCols; ++j) {
        double& w = want[ids[p] * kCols + j];
        const double u = upd[p * kCols + j];
        w = op == "ScatterAdd" ? w + u : op == "ScatterSub" ? w - u : u;
      }
    }
    auto out = session->Run({{"ids", Tensor::FromVector<int64_t>(ids, {2, 2})},
                             {"updates", Floats(upd, {2, 2, kCols})}},
                            {}, {"update"});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ExpectNear(AsDoubles<float>(test::Fetch(session.get(), "read")), want, 1e-6);
  }
}

TEST(ScatterTest, WideRowsSplitByColumnsGiveEveryRepeatInOrder) {
  // Rows of 200,000 elements are split over the device's threads; row 1 is
  // picked three times, so a split by rows would race.
  constexpr int64_t kWide = 200000;
  Scope s = Scope::NewRootScope();
  auto var = Variable(s.WithOpName("var"), {3, kWide}, DT_FLOAT);
  Assign(s.WithOpName("init"), var, Tensor::FromVector<float>(std::vector<float>(3 * kWide, 1.f),
                                                              {3, kWide}));
  std::vector<float> upd(4 * kWide);
  for (size_t i = 0; i < upd.size(); ++i) upd[i] = static_cast<float>(i % 7) * 0.125f;
  ScatterAdd(s.WithOpName("update"), var, Tensor::FromVector<int32_t>({1, 1, 0, 1}),
             Tensor::FromVector<float>(upd, {4, kWide}));
  Identity(s.WithOpName("read"), var);
  auto session = test::NewSession(s);
  ASSERT_TRUE(session->Run({}, {}, {"init"}).ok());
  ASSERT_TRUE(session->Run({}, {}, {"update"}).ok());
  Tensor got = test::Fetch(session.get(), "read");
  const float* g = got.data<float>();
  for (int64_t j = 0; j < kWide; ++j) {
    ASSERT_EQ(g[j], 1.f + upd[2 * kWide + j]) << j;
    ASSERT_EQ(g[kWide + j], ((1.f + upd[j]) + upd[kWide + j]) + upd[3 * kWide + j]) << j;
    ASSERT_EQ(g[2 * kWide + j], 1.f) << j;
  }
}

TEST(ScatterTest, AnIndexOutOfRangeChangesNothingAndTheSessionGoesOn) {
  auto session = ScatterSession([](const Scope& s, Output var, Output i, Output u) {
    ScatterAdd(s, var, i, u);
  });
  const Tensor upd = Floats(std::vector<double>(2 * kCols, 1.0), {2, kCols});
  for (int64_t bad : {int64_t{5}, int64_t{-1}}) {
    auto out = session->Run({{"ids", Tensor::FromVector<int64_t>({0, bad})}, {"updates", upd}}, {},
                            {"update"});
    ASSERT_FALSE(out.ok());
    EXPECT_NE(out.status().message().find("indices[1] = " + std::to_string(bad) +
                                          " is not in [0, 5) (the rows of variable 'var')"),
              std::string::npos)
        << out.status().ToString();
    EXPECT_NE(out.status().message().find("'update'"), std::string::npos) << out.status().ToString();
    // Row 0 was valid, and still nothing moved.
    ExpectNear(AsDoubles<float>(test::Fetch(session.get(), "read")), Var0(), 0);
  }
  // Updates that do not fit the rows picked.
  auto out = session->Run({{"ids", Tensor::FromVector<int64_t>({0, 1})},
                           {"updates", Floats(std::vector<double>(8, 1.0), {2, 4})}},
                          {}, {"update"});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("updates has shape [2,4] but the rows of variable 'var' "
                                        "(shape [5,3]) picked by indices of shape [2] have shape "
                                        "[2,3]"),
            std::string::npos)
      << out.status().ToString();
  auto ok = session->Run({{"ids", Tensor::FromVector<int64_t>({2})},
                          {"updates", Floats({1, 2, 3}, {1, kCols})}},
                         {}, {"update"});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  std::vector<double> want = Var0();
  for (int j = 0; j < kCols; ++j) want[2 * kCols + j] += j + 1;
  ExpectNear(AsDoubles<float>(test::Fetch(session.get(), "read")), want, 1e-6);
}

TEST(ScatterTest, ShapesThatCannotFitAreRefusedWhenTheGraphIsBuilt) {
  Scope s = Scope::NewRootScope();
  auto var = Variable(s, {kRows, kCols}, DT_FLOAT);
  ScatterAdd(s.WithOpName("bad"), var, Tensor::FromVector<int32_t>({0, 1}),
             Tensor::FromVector<float>({1, 2, 3}, {1, 3}));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().ToString().find("input 2 has shape [1,3]"), std::string::npos)
      << s.status().ToString();
}

// --- SparseApply* against TensorFlow's formulas, row by row in double.

// The slots after one sparse step of `op` on rows `ids` (in order, a row
// named twice updated twice), as the kernels document.
struct Slots {
  std::vector<double> var, a, b;  // a: accum or ms; b: mom
};

void Reference(const std::string& op, const std::vector<int64_t>& ids,
               const std::vector<double>& grad, double lr, Slots* s) {
  const double momentum = 0.9, rho = 0.8, epsilon = 0.1;
  for (size_t p = 0; p < ids.size(); ++p) {
    for (int j = 0; j < kCols; ++j) {
      const size_t i = ids[p] * kCols + j;
      const double g = grad[p * kCols + j];
      if (op == "SparseApplyMomentum") {
        s->a[i] = s->a[i] * momentum + g;
        s->var[i] -= lr * s->a[i];
      } else if (op == "SparseApplyRMSProp") {
        s->a[i] += (g * g - s->a[i]) * (1 - rho);
        s->b[i] = s->b[i] * momentum + lr * g / std::sqrt(s->a[i] + epsilon);
        s->var[i] -= s->b[i];
      } else {  // SparseApplyAdagradV2
        s->a[i] += g * g;
        s->var[i] -= lr * g / (std::sqrt(s->a[i]) + epsilon);
      }
    }
  }
}

TEST(SparseApplyTest, EachKernelMatchesItsFormulaOnThePickedRowsOnly) {
  const std::vector<int64_t> ids = {3, 0, 3};  // row 3 twice, rows 1, 2 and 4 untouched
  const std::vector<double> grad = {0.3, -1.5, 2.0, 0.01, -0.7, 0.4, -0.2, 0.6, 1.1};
  const double lr = 0.05;
  for (const std::string op : {"SparseApplyMomentum", "SparseApplyRMSProp", "SparseApplyAdagradV2"}) {
    SCOPED_TRACE(op);
    Scope s = Scope::NewRootScope();
    auto var = Variable(s.WithOpName("var"), {kRows, kCols}, DT_FLOAT);
    auto a = Variable(s.WithOpName("a"), {kRows, kCols}, DT_FLOAT);
    auto b = Variable(s.WithOpName("b"), {kRows, kCols}, DT_FLOAT);
    Slots want{Var0(), std::vector<double>(kRows * kCols), std::vector<double>(kRows * kCols)};
    for (int i = 0; i < kRows * kCols; ++i) {
      want.a[i] = 0.1 + 0.05 * i;
      want.b[i] = -0.02 * i;
    }
    Assign(s.WithOpName("init_var"), var, Floats(want.var, {kRows, kCols}));
    Assign(s.WithOpName("init_a"), a, Floats(want.a, {kRows, kCols}));
    Assign(s.WithOpName("init_b"), b, Floats(want.b, {kRows, kCols}));
    auto g = Placeholder(s.WithOpName("g"), DT_FLOAT);
    auto i = Placeholder(s.WithOpName("i"), DT_INT32);
    const Scope apply = s.WithOpName("apply");
    const Tensor f_lr = Tensor::Scalar<float>(lr);
    if (op == "SparseApplyMomentum") {
      SparseApplyMomentum(apply, var, a, f_lr, g, i, Tensor::Scalar<float>(0.9f));
    } else if (op == "SparseApplyRMSProp") {
      SparseApplyRMSProp(apply, var, a, b, f_lr, Tensor::Scalar<float>(0.8f),
                         Tensor::Scalar<float>(0.9f), Tensor::Scalar<float>(0.1f), g, i);
    } else {
      SparseApplyAdagradV2(apply, var, a, f_lr, Tensor::Scalar<float>(0.1f), g, i);
    }
    Identity(s.WithOpName("read_var"), var);
    Identity(s.WithOpName("read_a"), a);
    Identity(s.WithOpName("read_b"), b);
    auto session = test::NewSession(s);
    ASSERT_TRUE(session->Run({}, {}, {"init_var", "init_a", "init_b"}).ok());
    for (int step = 0; step < 3; ++step) {
      std::vector<double> gs = grad;
      for (double& x : gs) x *= step + 1;
      std::vector<int32_t> ids32(ids.begin(), ids.end());
      auto out = session->Run({{"g", Floats(gs, {3, kCols})}, {"i", Tensor::FromVector<int32_t>(ids32)}},
                              {}, {"apply"});
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      Reference(op, ids, gs, static_cast<float>(lr), &want);
    }
    ExpectNear(AsDoubles<float>(test::Fetch(session.get(), "read_var")), want.var, 1e-5);
    ExpectNear(AsDoubles<float>(test::Fetch(session.get(), "read_a")), want.a, 1e-5);
    ExpectNear(AsDoubles<float>(test::Fetch(session.get(), "read_b")), want.b, 1e-5);

    // A gradient whose rows do not match the indices, and indices of rank 2.
    auto bad = session->Run({{"g", Floats(grad, {3, kCols})}, {"i", Tensor::FromVector<int32_t>({1, 2})}},
                            {}, {"apply"});
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.status().message().find("the gradient has shape [3,3] but the rows of variable "
                                          "'var'"),
              std::string::npos)
        << bad.status().ToString();
    auto rank2 = session->Run({{"g", Floats(grad, {3, kCols})},
                               {"i", Tensor::FromVector<int32_t>({1, 2, 0}, {3, 1})}},
                              {}, {"apply"});
    ASSERT_FALSE(rank2.ok());
    EXPECT_NE(rank2.status().message().find("indices must be a vector, got shape [3,1]"),
              std::string::npos)
        << rank2.status().ToString();
    ExpectNear(AsDoubles<float>(test::Fetch(session.get(), "read_var")), want.var, 1e-5);
  }
}

}  // namespace
}  // namespace tact

// MaxPool, AvgPool and their gradients against naive window loops in double.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace tact {
namespace {

struct PoolCase {
  int64_t n, h, w, c, kh, kw, sh, sw;
  std::string padding;
};

struct Window {
  int64_t oh, ow, ph, pw;
};
Window Geom(const PoolCase& p) {
  auto dim = [&](int64_t in, int64_t k, int64_t s, int64_t* out, int64_t* pad) {
    if (p.padding == "SAME") {
      *out = (in + s - 1) / s;
      *pad = std::max<int64_t>((*out - 1) * s + k - in, 0) / 2;
    } else {
      *out = (in - k) / s + 1;
      *pad = 0;
    }
  };
  Window g;
  dim(p.h, p.kh, p.sh, &g.oh, &g.ph);
  dim(p.w, p.kw, p.sw, &g.ow, &g.pw);
  return g;
}

// fn(output_index, in-bounds input indices of its window in row-major order).
template <typename Fn>
void ForEachWindow(const PoolCase& p, const Window& g, Fn fn) {
  for (int64_t b = 0; b < p.n; ++b)
    for (int64_t oy = 0; oy < g.oh; ++oy)
      for (int64_t ox = 0; ox < g.ow; ++ox)
        for (int64_t c = 0; c < p.c; ++c) {
          std::vector<int64_t> in;
          for (int64_t ky = 0; ky < p.kh; ++ky)
            for (int64_t kx = 0; kx < p.kw; ++kx) {
              const int64_t y = oy * p.sh - g.ph + ky, x = ox * p.sw - g.pw + kx;
              if (y >= 0 && y < p.h && x >= 0 && x < p.w) in.push_back(((b * p.h + y) * p.w + x) * p.c + c);
            }
          fn(((b * g.oh + oy) * g.ow + ox) * p.c + c, in);
        }
}

AttrMap Attrs(const PoolCase& p) {
  return {{"ksize", AttrValue::IntList({1, p.kh, p.kw, 1})},
          {"strides", AttrValue::IntList({1, p.sh, p.sw, 1})},
          {"padding", AttrValue::String(p.padding)}};
}

const std::vector<PoolCase>& Cases() {
  static const std::vector<PoolCase> cases = {
      {1, 4, 4, 1, 2, 2, 2, 2, "VALID"}, {2, 28, 28, 3, 2, 2, 2, 2, "SAME"},
      {2, 7, 5, 3, 3, 3, 2, 2, "SAME"},  {1, 7, 5, 2, 3, 3, 2, 2, "VALID"},
      {3, 6, 6, 2, 3, 2, 1, 1, "SAME"},  {1, 5, 5, 4, 1, 1, 1, 1, "VALID"},
      {0, 4, 4, 2, 2, 2, 2, 2, "SAME"},  {1, 3, 3, 2, 5, 5, 1, 1, "SAME"},
      {2, 9, 9, 1, 4, 4, 3, 3, "SAME"},
  };
  return cases;
}

TensorShape InShape(const PoolCase& p) { return {p.n, p.h, p.w, p.c}; }
TensorShape OutShape(const PoolCase& p, const Window& g) { return {p.n, g.oh, g.ow, p.c}; }

template <typename T>
void CheckPools(const PoolCase& p) {
  SCOPED_TRACE(testing::Message() << p.n << "x" << p.h << "x" << p.w << "x" << p.c << " k" << p.kh
                                  << "x" << p.kw << " s" << p.sh << "x" << p.sw << " " << p.padding);
  const Window g = Geom(p);
  Tensor x = test::Random<T>(InShape(p), 31);
  Tensor dy = test::Random<T>(OutShape(p, g), 32);
  std::vector<double> xd = test::ToDoubles(x), dyd = test::ToDoubles(dy);
  const int64_t out_n = p.n * g.oh * g.ow * p.c;
  std::vector<double> max(out_n), avg(out_n), dmax(xd.size(), 0.0), davg(xd.size(), 0.0);
  ForEachWindow(p, g, [&](int64_t o, const std::vector<int64_t>& in) {
    int64_t arg = in[0];
    double sum = 0;
    for (int64_t i : in) {
      if (xd[i] > xd[arg]) arg = i;  // the first maximum wins ties
      sum += xd[i];
    }
    max[o] = xd[arg];
    avg[o] = sum / in.size();
    dmax[arg] += dyd[o];
    for (int64_t i : in) davg[i] += dyd[o] / in.size();
  });
  const double tol = std::is_same_v<T, float> ? 1e-5 : 1e-12;
  auto mp = test::RunOp("MaxPool", {x}, Attrs(p));
  ASSERT_TRUE(mp.ok()) << mp.status().ToString();
  test::ExpectClose((*mp)[0], OutShape(p, g), max, 0, 0);
  auto ap = test::RunOp("AvgPool", {x}, Attrs(p));
  ASSERT_TRUE(ap.ok()) << ap.status().ToString();
  test::ExpectClose((*ap)[0], OutShape(p, g), avg, tol, tol);
  auto mg = test::RunOp("MaxPoolGrad", {x, (*mp)[0], dy}, Attrs(p));
  ASSERT_TRUE(mg.ok()) << mg.status().ToString();
  test::ExpectClose((*mg)[0], InShape(p), dmax, tol, tol);
  Tensor sizes = Tensor::FromVector<int32_t>({static_cast<int32_t>(p.n), static_cast<int32_t>(p.h),
                                              static_cast<int32_t>(p.w), static_cast<int32_t>(p.c)});
  auto ag = test::RunOp("AvgPoolGrad", {sizes, dy}, Attrs(p));
  ASSERT_TRUE(ag.ok()) << ag.status().ToString();
  test::ExpectClose((*ag)[0], InShape(p), davg, tol, tol);
}

TEST(PoolingTest, MaxAvgAndGradientsMatchNaiveLoops) {
  for (const PoolCase& p : Cases()) {
    CheckPools<float>(p);
    CheckPools<double>(p);
  }
}

TEST(MaxPoolGradTest, TiesGoToTheFirstMaximum) {
  // One 2x2 window of equal values: all the gradient lands on the top-left.
  Tensor x = Tensor::FromVector<float>({3, 3, 3, 3}, {1, 2, 2, 1});
  Tensor dy = Tensor::FromVector<float>({5}, {1, 1, 1, 1});
  PoolCase p{1, 2, 2, 1, 2, 2, 2, 2, "VALID"};
  auto out = test::RunOp("MaxPoolGrad", {x, Tensor::FromVector<float>({3}, {1, 1, 1, 1}), dy},
                         Attrs(p));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  test::ExpectClose((*out)[0], {1, 2, 2, 1}, {5, 0, 0, 0}, 0, 0);
}

TEST(PoolingTest, Errors) {
  Tensor x = test::Random<float>({1, 4, 4, 1}, 1);
  PoolCase p{1, 4, 4, 1, 2, 2, 2, 2, "VALID"};
  auto rank = test::RunOp("MaxPool", {test::Random<float>({4, 4, 1}, 1)}, Attrs(p));
  test::ExpectError(rank.status(), Code::kInvalidArgument, "rank 4 (NHWC), got shape [4,4,1]");
  AttrMap depth = Attrs(p);
  depth["ksize"] = AttrValue::IntList({1, 2, 2, 2});
  test::ExpectError(test::RunOp("AvgPool", {x}, depth).status(), Code::kInvalidArgument,
                    "ksize in the batch and depth dimensions must be 1");
  AttrMap short_ksize = Attrs(p);
  short_ksize["ksize"] = AttrValue::IntList({2, 2});
  test::ExpectError(test::RunOp("MaxPool", {x}, short_ksize).status(), Code::kInvalidArgument,
                    "ksize");
  AttrMap bad_padding = Attrs(p);
  bad_padding["padding"] = AttrValue::String("same");
  test::ExpectError(test::RunOp("MaxPool", {x}, bad_padding).status(), Code::kInvalidArgument,
                    "not in the allowed set");
  AttrMap big = Attrs(p);
  big["ksize"] = AttrValue::IntList({1, 6, 6, 1});
  big["strides"] = AttrValue::IntList({1, 1, 1, 1});
  test::ExpectError(test::RunOp("MaxPool", {x}, big).status(), Code::kInvalidArgument,
                    "larger than the input");
  auto grad = test::RunOp("MaxPoolGrad", {x, test::Random<float>({1, 2, 2, 1}, 2),
                                          test::Random<float>({1, 3, 2, 1}, 3)}, Attrs(p));
  test::ExpectError(grad.status(), Code::kInvalidArgument,
                    "grad has shape [1,3,2,1] but the pooling's output is [1,2,2,1]");
  auto avg = test::RunOp("AvgPoolGrad", {Tensor::FromVector<int32_t>({1, 4, 4}),
                                         test::Random<float>({1, 2, 2, 1}, 3)}, Attrs(p));
  test::ExpectError(avg.status(), Code::kInvalidArgument,
                    "orig_input_shape must be a vector of 4 elements");
}

}  // namespace
}  // namespace tact

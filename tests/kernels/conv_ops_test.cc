// Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter against direct loops
// in double. The two gradients' references are the adjoints of the forward
// loops, written out by hand: the same index map, with the roles swapped.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace tact {
namespace {

struct ConvCase {
  int64_t n, h, w, cin, kh, kw, cout, stride;
  std::string padding;
  int64_t dilation = 1;
};

// TF's sizes, computed here independently of the kernel's own helper.
struct Geometry {
  int64_t oh, ow, ph, pw;
};
Geometry Geom(const ConvCase& c) {
  auto dim = [&](int64_t in, int64_t k, int64_t* out, int64_t* pad) {
    const int64_t ek = (k - 1) * c.dilation + 1;
    if (c.padding == "SAME") {
      *out = (in + c.stride - 1) / c.stride;
      *pad = std::max<int64_t>((*out - 1) * c.stride + ek - in, 0) / 2;
    } else {
      *out = (in - ek) / c.stride + 1;
      *pad = 0;
    }
  };
  Geometry g;
  dim(c.h, c.kh, &g.oh, &g.ph);
  dim(c.w, c.kw, &g.ow, &g.pw);
  return g;
}

// Calls fn(input_index, filter_index, output_index) for every term of the
// direct convolution sum: the one index map all three references share.
template <typename Fn>
void ForEachTerm(const ConvCase& c, const Geometry& g, Fn fn) {
  for (int64_t b = 0; b < c.n; ++b)
    for (int64_t oy = 0; oy < g.oh; ++oy)
      for (int64_t ox = 0; ox < g.ow; ++ox)
        for (int64_t ky = 0; ky < c.kh; ++ky)
          for (int64_t kx = 0; kx < c.kw; ++kx) {
            const int64_t iy = oy * c.stride - g.ph + ky * c.dilation;
            const int64_t ix = ox * c.stride - g.pw + kx * c.dilation;
            if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
            for (int64_t ci = 0; ci < c.cin; ++ci)
              for (int64_t co = 0; co < c.cout; ++co) {
                fn(((b * c.h + iy) * c.w + ix) * c.cin + ci, ((ky * c.kw + kx) * c.cin + ci) * c.cout + co,
                   ((b * g.oh + oy) * g.ow + ox) * c.cout + co);
              }
          }
}

AttrMap Attrs(const ConvCase& c) {
  return {{"strides", AttrValue::IntList({1, c.stride, c.stride, 1})},
          {"padding", AttrValue::String(c.padding)},
          {"dilations", AttrValue::IntList({1, c.dilation, c.dilation, 1})}};
}

const std::vector<ConvCase>& Cases() {
  static const std::vector<ConvCase> cases = {
      {1, 5, 5, 1, 3, 3, 1, 1, "VALID"},
      {2, 7, 6, 3, 3, 3, 4, 2, "SAME"},
      {3, 9, 9, 2, 5, 5, 3, 1, "SAME"},
      {2, 9, 8, 2, 5, 5, 3, 2, "VALID"},
      {2, 28, 28, 1, 5, 5, 8, 1, "SAME"},     // the tutorial CNN's first layer, narrower
      {1, 6, 7, 4, 1, 1, 5, 1, "VALID"},      // pointwise: no im2col
      {2, 6, 7, 4, 1, 1, 5, 2, "SAME"},       // 1x1 but strided
      {0, 5, 5, 2, 3, 3, 2, 1, "SAME"},       // empty batch
      {2, 8, 8, 2, 3, 3, 2, 1, "SAME", 2},    // dilated
      {2, 4, 4, 2, 5, 5, 3, 1, "SAME"},       // filter larger than the input
      {1, 6, 6, 2, 2, 2, 2, 2, "VALID"},      // even filter
      {2, 7, 7, 3, 4, 4, 2, 3, "SAME"},       // even filter, odd padding split
  };
  return cases;
}

std::string Name(const ConvCase& c) {
  std::ostringstream os;
  os << "n" << c.n << " " << c.h << "x" << c.w << "x" << c.cin << " k" << c.kh << "x" << c.kw
     << "x" << c.cout << " s" << c.stride << " " << c.padding << " d" << c.dilation;
  return os.str();
}

template <typename T>
void CheckForward(const ConvCase& c, double tol) {
  SCOPED_TRACE(Name(c));
  const Geometry g = Geom(c);
  Tensor x = test::Random<T>({c.n, c.h, c.w, c.cin}, 1);
  Tensor f = test::Random<T>({c.kh, c.kw, c.cin, c.cout}, 2);
  std::vector<double> xd = test::ToDoubles(x), fd = test::ToDoubles(f);
  std::vector<double> want(c.n * g.oh * g.ow * c.cout, 0.0);
  ForEachTerm(c, g, [&](int64_t i, int64_t k, int64_t o) { want[o] += xd[i] * fd[k]; });
  auto out = test::RunOp("Conv2D", {x, f}, Attrs(c));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  test::ExpectClose((*out)[0], {c.n, g.oh, g.ow, c.cout}, want, tol, tol);
}

template <typename T>
void CheckBackpropInput(const ConvCase& c, double tol) {
  SCOPED_TRACE(Name(c));
  const Geometry g = Geom(c);
  Tensor f = test::Random<T>({c.kh, c.kw, c.cin, c.cout}, 3);
  Tensor dy = test::Random<T>({c.n, g.oh, g.ow, c.cout}, 4);
  std::vector<double> fd = test::ToDoubles(f), dyd = test::ToDoubles(dy);
  std::vector<double> want(c.n * c.h * c.w * c.cin, 0.0);
  ForEachTerm(c, g, [&](int64_t i, int64_t k, int64_t o) { want[i] += dyd[o] * fd[k]; });
  Tensor sizes = Tensor::FromVector<int32_t>({static_cast<int32_t>(c.n), static_cast<int32_t>(c.h),
                                              static_cast<int32_t>(c.w), static_cast<int32_t>(c.cin)});
  auto out = test::RunOp("Conv2DBackpropInput", {sizes, f, dy}, Attrs(c));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  test::ExpectClose((*out)[0], {c.n, c.h, c.w, c.cin}, want, tol, tol);
}

template <typename T>
void CheckBackpropFilter(const ConvCase& c, double tol) {
  SCOPED_TRACE(Name(c));
  const Geometry g = Geom(c);
  Tensor x = test::Random<T>({c.n, c.h, c.w, c.cin}, 5);
  Tensor dy = test::Random<T>({c.n, g.oh, g.ow, c.cout}, 6);
  std::vector<double> xd = test::ToDoubles(x), dyd = test::ToDoubles(dy);
  std::vector<double> want(c.kh * c.kw * c.cin * c.cout, 0.0);
  ForEachTerm(c, g, [&](int64_t i, int64_t k, int64_t o) { want[k] += xd[i] * dyd[o]; });
  Tensor sizes = Tensor::FromVector<int32_t>({static_cast<int32_t>(c.kh), static_cast<int32_t>(c.kw),
                                              static_cast<int32_t>(c.cin), static_cast<int32_t>(c.cout)});
  auto out = test::RunOp("Conv2DBackpropFilter", {x, sizes, dy}, Attrs(c));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  test::ExpectClose((*out)[0], {c.kh, c.kw, c.cin, c.cout}, want, tol, tol);
}

TEST(Conv2DTest, MatchesDirectLoops) {
  for (const ConvCase& c : Cases()) {
    CheckForward<float>(c, 1e-4);
    CheckForward<double>(c, 1e-10);
  }
}

TEST(Conv2DBackpropInputTest, MatchesAdjointOfDirectLoops) {
  for (const ConvCase& c : Cases()) {
    CheckBackpropInput<float>(c, 1e-4);
    CheckBackpropInput<double>(c, 1e-10);
  }
}

TEST(Conv2DBackpropFilterTest, MatchesAdjointOfDirectLoops) {
  for (const ConvCase& c : Cases()) {
    CheckBackpropFilter<float>(c, 1e-3);
    CheckBackpropFilter<double>(c, 1e-10);
  }
}

// Enough images for several chunks and groups (SplitConvBatch): one image
// per chunk, and (depth 1) several images per chunk, several chunks per group.
TEST(Conv2DTest, SeveralChunksMatchDirectLoops) {
  for (const ConvCase& c : {ConvCase{16, 28, 28, 32, 5, 5, 4, 1, "SAME"},
                            ConvCase{64, 28, 28, 1, 5, 5, 4, 1, "SAME"}}) {
    CheckForward<float>(c, 1e-3);
    CheckBackpropInput<float>(c, 1e-3);
    CheckBackpropFilter<float>(c, 2e-2);
  }
}

TEST(Conv2DTest, ResultDoesNotDependOnThreads) {
  const ConvCase c{5, 12, 12, 3, 5, 5, 6, 1, "SAME"};
  Tensor x = test::Random<float>({5, 12, 12, 3}, 7);
  Tensor f = test::Random<float>({5, 5, 3, 6}, 8);
  auto one = test::RunOp("Conv2D", {x, f}, Attrs(c), 1);
  auto four = test::RunOp("Conv2D", {x, f}, Attrs(c), 4);
  ASSERT_TRUE(one.ok() && four.ok());
  EXPECT_TRUE((*one)[0].BitwiseEqual((*four)[0]));
}

// The gradients too: the filter gradient sums per-group partials in a
// fixed order, the input gradient writes each image from one chunk. The
// batch is large enough for several groups.
TEST(Conv2DBackpropTest, ResultsDoNotDependOnThreads) {
  const ConvCase c{40, 12, 12, 16, 5, 5, 6, 1, "SAME"};
  Tensor x = test::Random<float>({40, 12, 12, 16}, 7);
  Tensor f = test::Random<float>({5, 5, 16, 6}, 8);
  Tensor dy = test::Random<float>({40, 12, 12, 6}, 9);
  Tensor in_sizes = Tensor::FromVector<int32_t>({40, 12, 12, 16});
  Tensor f_sizes = Tensor::FromVector<int32_t>({5, 5, 16, 6});
  for (int threads : {1, 2, 4}) {
    SCOPED_TRACE(threads);
    auto in1 = test::RunOp("Conv2DBackpropInput", {in_sizes, f, dy}, Attrs(c), 1);
    auto inn = test::RunOp("Conv2DBackpropInput", {in_sizes, f, dy}, Attrs(c), threads);
    auto f1 = test::RunOp("Conv2DBackpropFilter", {x, f_sizes, dy}, Attrs(c), 1);
    auto fn = test::RunOp("Conv2DBackpropFilter", {x, f_sizes, dy}, Attrs(c), threads);
    ASSERT_TRUE(in1.ok() && inn.ok() && f1.ok() && fn.ok());
    EXPECT_TRUE((*in1)[0].BitwiseEqual((*inn)[0]));
    EXPECT_TRUE((*f1)[0].BitwiseEqual((*fn)[0]));
  }
}

TEST(Conv2DTest, WrongFilterDepthNamesBothShapes) {
  auto out = test::RunOp("Conv2D", {test::Random<float>({1, 5, 5, 3}, 1),
                                    test::Random<float>({3, 3, 2, 4}, 2)},
                         Attrs({1, 5, 5, 3, 3, 3, 4, 1, "SAME"}));
  test::ExpectError(out.status(), Code::kInvalidArgument,
                    "input depth 3 does not match filter input depth 2: input [1,5,5,3], filter "
                    "[3,3,2,4]");
}

TEST(Conv2DTest, BadRanksAndWindowsAreErrors) {
  const AttrMap attrs = Attrs({1, 5, 5, 3, 3, 3, 4, 1, "VALID"});
  auto rank3 = test::RunOp("Conv2D", {test::Random<float>({5, 5, 3}, 1),
                                      test::Random<float>({3, 3, 3, 4}, 2)}, attrs);
  test::ExpectError(rank3.status(), Code::kInvalidArgument, "input [5,5,3]");
  auto big = test::RunOp("Conv2D", {test::Random<float>({1, 2, 2, 3}, 1),
                                    test::Random<float>({5, 5, 3, 4}, 2)}, attrs);
  test::ExpectError(big.status(), Code::kInvalidArgument, "larger than the input");
}

TEST(Conv2DTest, BadStridesListIsAnError) {
  Tensor x = test::Random<float>({1, 5, 5, 1}, 1);
  Tensor f = test::Random<float>({3, 3, 1, 1}, 2);
  auto three = test::RunOp("Conv2D", {x, f}, {{"strides", AttrValue::IntList({1, 1, 1})},
                                              {"padding", AttrValue::String("SAME")}});
  test::ExpectError(three.status(), Code::kInvalidArgument, "strides must have 4 entries");
  auto batch = test::RunOp("Conv2D", {x, f}, {{"strides", AttrValue::IntList({2, 1, 1, 1})},
                                              {"padding", AttrValue::String("SAME")}});
  test::ExpectError(batch.status(), Code::kInvalidArgument,
                    "strides in the batch and depth dimensions must be 1, got [2,1,1,1]");
  auto zero = test::RunOp("Conv2D", {x, f}, {{"strides", AttrValue::IntList({1, 0, 1, 1})},
                                             {"padding", AttrValue::String("SAME")}});
  test::ExpectError(zero.status(), Code::kInvalidArgument, "strides entries must be >= 1");
}

TEST(Conv2DTest, BadPaddingStringIsCaughtByTheAttr) {
  auto out = test::RunOp("Conv2D", {test::Random<float>({1, 5, 5, 1}, 1),
                                    test::Random<float>({3, 3, 1, 1}, 2)},
                         {{"strides", AttrValue::IntList({1, 1, 1, 1})},
                          {"padding", AttrValue::String("FULL")}});
  test::ExpectError(out.status(), Code::kInvalidArgument, "padding");
  test::ExpectError(out.status(), Code::kInvalidArgument, "not in the allowed set");
}

TEST(Conv2DTest, NchwIsRejectedOnCpu) {
  AttrMap attrs = Attrs({1, 5, 5, 1, 3, 3, 1, 1, "SAME"});
  attrs["data_format"] = AttrValue::String("NCHW");
  auto out = test::RunOp("Conv2D", {test::Random<float>({1, 5, 5, 1}, 1),
                                    test::Random<float>({3, 3, 1, 1}, 2)}, attrs);
  test::ExpectError(out.status(), Code::kInvalidArgument, "data_format 'NCHW' is not supported");
}

TEST(Conv2DBackpropTest, ShapeMismatchesAreErrors) {
  const ConvCase c{2, 6, 6, 3, 3, 3, 4, 1, "SAME"};
  Tensor f = test::Random<float>({3, 3, 3, 4}, 1);
  Tensor x = test::Random<float>({2, 6, 6, 3}, 2);
  Tensor bad_dy = test::Random<float>({2, 5, 6, 4}, 3);
  auto in = test::RunOp("Conv2DBackpropInput",
                        {Tensor::FromVector<int32_t>({2, 6, 6, 3}), f, bad_dy}, Attrs(c));
  test::ExpectError(in.status(), Code::kInvalidArgument,
                    "out_backprop has shape [2,5,6,4] but the convolution's output is [2,6,6,4]");
  auto fl = test::RunOp("Conv2DBackpropFilter",
                        {x, Tensor::FromVector<int32_t>({3, 3, 3, 4}), bad_dy}, Attrs(c));
  test::ExpectError(fl.status(), Code::kInvalidArgument, "out_backprop has shape [2,5,6,4]");
  auto sizes = test::RunOp("Conv2DBackpropInput",
                           {Tensor::FromVector<int32_t>({2, 6, 6}), f, bad_dy}, Attrs(c));
  test::ExpectError(sizes.status(), Code::kInvalidArgument,
                    "input_sizes must be a vector of 4 elements, got shape [3]");
  auto negative = test::RunOp("Conv2DBackpropFilter",
                              {x, Tensor::FromVector<int32_t>({3, -3, 3, 4}), bad_dy}, Attrs(c));
  test::ExpectError(negative.status(), Code::kInvalidArgument, "filter_sizes is not a valid shape");
  auto depth = test::RunOp("Conv2DBackpropInput",
                           {Tensor::FromVector<int32_t>({2, 6, 6, 2}), f,
                            test::Random<float>({2, 6, 6, 4}, 3)}, Attrs(c));
  test::ExpectError(depth.status(), Code::kInvalidArgument, "does not match filter input depth");
}

}  // namespace
}  // namespace tact

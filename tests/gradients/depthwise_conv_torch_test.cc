// DepthwiseConv2dNative against PyTorch's grouped convolution (F.conv2d with
// groups = channels, Debian's python3-torch) in float64: the values and the
// gradients of sum(y^2)/2 for the input and the filter, over strides,
// dilations, both paddings (TensorFlow's SAME padding applied explicitly on
// the PyTorch side, the extra element after) and channel multipliers 1 and
// 3. Skipped, saying so, where PyTorch is not installed.
#include <gtest/gtest.h>

#include <sstream>

#include "graph/gradients/gradients.h"
#include "graph/ops/all_ops.h"
#include "tests/gradients/gradient_checker.h"
#include "tests/gradients/torch_reference.h"

namespace tact {
namespace {

struct Case {
  TensorShape input, filter;  // NHWC, [KH, KW, C, M]
  int64_t stride_rows, stride_cols;
  std::string padding;
  int64_t dilation = 1;
};

TEST(DepthwiseConvTorchTest, ValuesAndGradientsMatchPyTorch) {
  if (!test::TorchAvailable()) GTEST_SKIP() << "PyTorch is not installed (scripts/setup_peers.sh)";
  const std::vector<Case> cases = {
      {{2, 6, 5, 3}, {3, 3, 3, 1}, 1, 1, "SAME"},
      {{2, 6, 5, 3}, {3, 3, 3, 1}, 1, 1, "VALID"},
      {{1, 7, 6, 2}, {3, 2, 2, 3}, 2, 1, "SAME"},
      {{1, 8, 8, 4}, {5, 5, 4, 2}, 2, 2, "SAME"},
      {{2, 7, 7, 2}, {3, 3, 2, 1}, 1, 1, "SAME", 2},
      {{1, 5, 6, 3}, {2, 2, 3, 2}, 3, 2, "VALID"},
      {{3, 4, 4, 5}, {1, 1, 5, 2}, 1, 1, "VALID"},
  };
  std::ostringstream script;
  script << test::kTorchPreamble << R"(
def tf_pad(size, k, stride, dilation):
    out = (size + stride - 1) // stride
    total = max((out - 1) * stride + (k - 1) * dilation + 1 - size, 0)
    return total // 2, total - total // 2
)";
  std::vector<std::vector<std::vector<double>>> tact(cases.size());
  for (size_t c = 0; c < cases.size(); ++c) {
    const Case& k = cases[c];
    SCOPED_TRACE(k.input.DebugString() + " " + k.filter.DebugString() + " " + k.padding);
    const std::vector<int64_t> strides = {1, k.stride_rows, k.stride_cols, 1};
    const std::vector<int64_t> dilations = {1, k.dilation, k.dilation, 1};
    Scope s = Scope::NewRootScope();
    Output x = Placeholder(s, DT_DOUBLE, k.input), f = Placeholder(s, DT_DOUBLE, k.filter);
    Output y = DepthwiseConv2dNative(s, x, f, strides, k.padding, dilations);
    Output loss = Mul(s, Sum(s, Square(s, y), {0, 1, 2, 3}), 0.5);
    std::vector<Output> grads;
    ASSERT_TRUE(AddSymbolicGradients(s, {loss}, {x, f}, {}, &grads).ok()) << s.status().ToString();
    const Tensor xv = RandomDoubles(k.input, 3 + c), fv = RandomDoubles(k.filter, 40 + c);
    auto got = RunGraph(s, {x, f}, {xv, fv}, {y, grads[0], grads[1]});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    for (const Tensor& t : *got) tact[c].push_back(test::FlatDoubles(t));
    const int64_t kh = k.filter.dim_size(0), kw = k.filter.dim_size(1);
    const int64_t ch = k.filter.dim_size(2), m = k.filter.dim_size(3);
    script << "x = " << test::TorchTensor(xv) << ".requires_grad_()\n"
           << "f = " << test::TorchTensor(fv) << ".requires_grad_()\n"
           << "xt = x.permute(0, 3, 1, 2)\n";
    if (k.padding == "SAME") {
      script << "t, b = tf_pad(" << k.input.dim_size(1) << ", " << kh << ", " << k.stride_rows
             << ", " << k.dilation << ")\n"
             << "l, r = tf_pad(" << k.input.dim_size(2) << ", " << kw << ", " << k.stride_cols
             << ", " << k.dilation << ")\n"
             << "xt = F.pad(xt, (l, r, t, b))\n";
    }
    script << "w = f.permute(2, 3, 0, 1).reshape(" << ch * m << ", 1, " << kh << ", " << kw << ")\n"
           << "y = F.conv2d(xt, w, stride=(" << k.stride_rows << ", " << k.stride_cols
           << "), dilation=" << k.dilation << ", groups=" << ch << ").permute(0, 2, 3, 1)\n"
           << "out(y)\n(y * y / 2).sum().backward()\nout(x.grad)\nout(f.grad)\n";
  }
  auto torch = test::RunTorchScript(script.str());
  ASSERT_TRUE(torch.ok()) << torch.status().ToString();
  ASSERT_EQ(torch->size(), cases.size() * 3);
  for (size_t c = 0; c < cases.size(); ++c) {
    for (size_t i = 0; i < 3; ++i) {
      SCOPED_TRACE("case " + std::to_string(c) + (i == 0 ? ": values" : i == 1 ? ": d/dx" : ": d/df"));
      test::ExpectMatches(tact[c][i], (*torch)[c * 3 + i], 1e-10);
    }
  }
}

}  // namespace
}  // namespace tact

// The depthwise convolution kernels beyond what the PyTorch comparison
// (tests/gradients/depthwise_conv_torch_test.cc) shows: the same bits on 1
// and 4 threads (each element is summed by one task in a fixed order), a
// multiplier of 1 against a hand-computed result, and bad input named.
#include <gtest/gtest.h>

#include "tests/kernels/array_test_util.h"

namespace tact {
namespace {

AttrMap Attrs(std::vector<int64_t> strides, const std::string& padding) {
  return {{"strides", AttrValue::IntList(std::move(strides))}, {"padding", AttrValue::String(padding)}};
}

TEST(DepthwiseConvOpsTest, TheSameBitsOnOneAndFourThreads) {
  const Tensor x = test::Random<float>({4, 9, 9, 8}, 1), f = test::Random<float>({3, 3, 8, 2}, 2);
  const Tensor dy = test::Random<float>({4, 5, 5, 16}, 3);
  const AttrMap a = Attrs({1, 2, 2, 1}, "SAME");
  const std::vector<std::pair<std::string, std::vector<Tensor>>> runs = {
      {"DepthwiseConv2dNative", {x, f}},
      {"DepthwiseConv2dNativeBackpropInput", {test::Ints({4, 9, 9, 8}), f, dy}},
      {"DepthwiseConv2dNativeBackpropFilter", {x, test::Ints({3, 3, 8, 2}), dy}},
  };
  for (const auto& [op, inputs] : runs) {
    SCOPED_TRACE(op);
    auto one = test::RunOp(op, inputs, a, 1), four = test::RunOp(op, inputs, a, 4);
    ASSERT_TRUE(one.ok() && four.ok()) << one.status().ToString() << four.status().ToString();
    test::ExpectTensorEq((*four)[0], (*one)[0]);
  }
}

// One 3x3 image of two channels, a 2x2 VALID window: each output pixel is
// the window's sum of x * f, channel by channel.
TEST(DepthwiseConvOpsTest, AMultiplierOfOneByHand) {
  const Tensor x = Tensor::FromVector<float>({1, 10, 2, 20, 3, 30, 4, 40, 5, 50, 6, 60, 7, 70, 8, 80,
                                              9, 90},
                                             {1, 3, 3, 2});
  const Tensor f = Tensor::FromVector<float>({1, 0, 0, 1, 0, 0, 1, 1}, {2, 2, 2, 1});
  // Channel 0 takes the window's top-left and bottom-right; channel 1 its
  // top-right and bottom-right.
  const Tensor y = test::RunOne("DepthwiseConv2dNative", {x, f}, Attrs({1, 1, 1, 1}, "VALID"));
  test::ExpectClose(y, TensorShape({1, 2, 2, 2}),
                    {1 + 5, 20 + 50, 2 + 6, 30 + 60, 4 + 8, 50 + 80, 5 + 9, 60 + 90},
                    0, 0);
}

TEST(DepthwiseConvOpsTest, BadInputIsNamed) {
  const Tensor x = test::Random<float>({1, 5, 5, 3}, 1);
  test::ExpectError(test::RunOp("DepthwiseConv2dNative", {x, test::Random<float>({3, 3, 2, 1}, 2)},
                                Attrs({1, 1, 1, 1}, "SAME"))
                        .status(),
                    Code::kInvalidArgument, "depth");
  test::ExpectError(
      test::RunOp("DepthwiseConv2dNativeBackpropFilter",
                  {x, test::Ints({3, 3, 3, 2}), test::Random<float>({1, 5, 5, 3}, 3)},
                  Attrs({1, 1, 1, 1}, "SAME"))
          .status(),
      Code::kInvalidArgument, "out_backprop has shape [1,5,5,3] but the convolution's output is [1,5,5,6]");
}

}  // namespace
}  // namespace tact

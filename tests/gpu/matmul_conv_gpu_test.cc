// The cuBLAS and cuDNN kernels against the CPU kernels, on random inputs.
#include <gtest/gtest.h>

#include "tests/gpu/gpu_test_util.h"
#include "tests/kernels/kernel_test_util.h"

namespace tact {
namespace {

using test::ExpectGpuMatchesCpu;
using test::Random;

TEST(MatMulGpuTest, MatchesTheCpuForEveryTransposeAndShape) {
  TACT_REQUIRE_GPU();
  for (auto [m, k, n] : {std::tuple{1, 1, 1}, {7, 13, 5}, {128, 256, 64}, {513, 257, 129}}) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n) +
                     (ta ? " ta" : "") + (tb ? " tb" : ""));
        Tensor a = Random<float>(ta ? TensorShape({k, m}) : TensorShape({m, k}), 1);
        Tensor b = Random<float>(tb ? TensorShape({n, k}) : TensorShape({k, n}), 2);
        ExpectGpuMatchesCpu("MatMul", {a, b},
                            {{"transpose_a", AttrValue::Bool(ta)}, {"transpose_b", AttrValue::Bool(tb)}},
                            1e-4, 1e-4);
      }
    }
  }
}

TEST(MatMulGpuTest, DoubleAndAnEmptyInnerDimension) {
  TACT_REQUIRE_GPU();
  ExpectGpuMatchesCpu("MatMul", {Random<double>({33, 17}, 3), Random<double>({17, 9}, 4)}, {}, 1e-12, 1e-12);
  ExpectGpuMatchesCpu("MatMul", {Tensor(DT_FLOAT, {4, 0}), Tensor(DT_FLOAT, {0, 3})});
}

TEST(MatMulGpuTest, HalfAndBfloat16AccumulateInFloat) {
  TACT_REQUIRE_GPU();
  ExpectGpuMatchesCpu("MatMul", {Random<half>({64, 128}, 5, -1, 1), Random<half>({128, 32}, 6, -1, 1)}, {},
                      1e-2, 2e-2);
  ExpectGpuMatchesCpu("MatMul",
                      {Random<bfloat16>({64, 128}, 7, -1, 1), Random<bfloat16>({128, 32}, 8, -1, 1)}, {},
                      2e-2, 1e-1);
}

TEST(MatMulGpuTest, ABadShapeNamesTheNode) {
  TACT_REQUIRE_GPU();
  auto out = test::RunOpOnGpu("MatMul", {Random<float>({3, 4}, 1), Random<float>({5, 2}, 2)});
  ASSERT_FALSE(out.ok());
  test::ExpectError(out.status(), Code::kInvalidArgument, "test_MatMul");
}

TEST(BatchMatMulGpuTest, EqualBatchesAndOneSharedMatrix) {
  TACT_REQUIRE_GPU();
  for (bool ax : {false, true}) {
    for (bool ay : {false, true}) {
      AttrMap attrs = {{"adj_x", AttrValue::Bool(ax)}, {"adj_y", AttrValue::Bool(ay)}};
      ExpectGpuMatchesCpu("BatchMatMul", {Random<float>({3, 2, 6, 6}, 1), Random<float>({3, 2, 6, 6}, 2)},
                          attrs, 1e-4, 1e-4);
      ExpectGpuMatchesCpu("BatchMatMul", {Random<float>({4, 5, 7}, 3), Random<float>({7, 5}, 4)},
                          {{"adj_x", AttrValue::Bool(false)}, {"adj_y", AttrValue::Bool(false)}}, 1e-4, 1e-4);
    }
  }
}

// The output's batch dims are the broadcast batch shape, as on the CPU,
// whichever operand has more of them; an empty matrix keeps its batch.
TEST(BatchMatMulGpuTest, BatchRanksThatDifferAndEmptyMatricesGiveTheCpusShapes) {
  TACT_REQUIRE_GPU();
  const AttrMap plain = {{"adj_x", AttrValue::Bool(false)}, {"adj_y", AttrValue::Bool(false)}};
  const std::vector<std::pair<TensorShape, TensorShape>> cases = {
      {{2, 3, 4}, {1, 1, 4, 5}},  // [1, 2, 3, 5]
      {{3, 4}, {1, 4, 5}},        // [1, 3, 5]
      {{1, 1, 3, 4}, {3, 4, 5}},  // [1, 3, 3, 5]
      {{3, 0, 4}, {4, 5}},        // [3, 0, 5]
      {{3, 2, 0}, {0, 5}},        // zeros [3, 2, 5]
      {{3, 2, 5}, {1, 5, 0}},     // [3, 2, 0]
  };
  for (const auto& [x, y] : cases) {
    SCOPED_TRACE(x.DebugString() + " x " + y.DebugString());
    ExpectGpuMatchesCpu("BatchMatMul", {Random<float>(x, 1), Random<float>(y, 2)}, plain, 1e-4, 1e-4);
  }
  // Broadcast on both sides is the CPU's alone.
  auto out = test::RunOpOnGpu("BatchMatMul", {Random<float>({2, 1, 3, 4}, 1), Random<float>({1, 3, 4, 5}, 2)},
                              plain);
  ASSERT_FALSE(out.ok());
  test::ExpectError(out.status(), Code::kUnimplemented, "all 1 on one side");
}

AttrMap ConvAttrs(int stride, const char* padding) {
  return {{"strides", AttrValue::IntList({1, stride, stride, 1})},
          {"padding", AttrValue::String(padding)},
          {"data_format", AttrValue::String("NHWC")}};
}

TEST(Conv2DGpuTest, ForwardAndBothGradientsMatchTheCpu) {
  TACT_REQUIRE_GPU();
  struct Case {
    TensorShape input, filter;
    int stride;
    const char* padding;
  };
  // The cnn's own layer; a strided SAME case with more padding after than
  // before (the padded-copy path); a VALID one.
  for (const Case& c :
       {Case{{8, 28, 28, 1}, {5, 5, 1, 32}, 1, "SAME"}, Case{{2, 9, 10, 3}, {3, 3, 3, 4}, 2, "SAME"},
        Case{{3, 11, 7, 5}, {3, 2, 5, 6}, 1, "VALID"}}) {
    SCOPED_TRACE(c.input.DebugString() + " " + c.filter.DebugString() + " " + c.padding);
    AttrMap attrs = ConvAttrs(c.stride, c.padding);
    Tensor x = Random<float>(c.input, 11);
    Tensor w = Random<float>(c.filter, 12);
    ExpectGpuMatchesCpu("Conv2D", {x, w}, attrs, 1e-4, 1e-4);
    auto y = test::RunOp("Conv2D", {x, w}, attrs);
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    Tensor dy = Random<float>((*y)[0].shape(), 13);
    std::vector<int32_t> in_sizes(c.input.dim_sizes().begin(), c.input.dim_sizes().end());
    std::vector<int32_t> w_sizes(c.filter.dim_sizes().begin(), c.filter.dim_sizes().end());
    ExpectGpuMatchesCpu("Conv2DBackpropInput", {Tensor::FromVector<int32_t>(in_sizes, {4}), w, dy}, attrs,
                        1e-4, 1e-4);
    ExpectGpuMatchesCpu("Conv2DBackpropFilter", {x, Tensor::FromVector<int32_t>(w_sizes, {4}), dy}, attrs,
                        1e-4, 1e-3);
  }
}

AttrMap PoolAttrs(int window, int stride, const char* padding) {
  return {{"ksize", AttrValue::IntList({1, window, window, 1})},
          {"strides", AttrValue::IntList({1, stride, stride, 1})},
          {"padding", AttrValue::String(padding)},
          {"data_format", AttrValue::String("NHWC")}};
}

TEST(PoolingGpuTest, MaxAndAveragePoolingAndTheirGradientsMatchTheCpu) {
  TACT_REQUIRE_GPU();
  for (auto [window, stride, padding] : {std::tuple{2, 2, "VALID"}, {3, 1, "SAME"}, {3, 2, "VALID"}}) {
    SCOPED_TRACE(std::to_string(window) + "/" + std::to_string(stride) + " " + padding);
    AttrMap attrs = PoolAttrs(window, stride, padding);
    Tensor x = Random<float>({4, 12, 12, 8}, 21);
    ExpectGpuMatchesCpu("MaxPool", {x}, attrs);
    ExpectGpuMatchesCpu("AvgPool", {x}, attrs);
    auto y = test::RunOp("MaxPool", {x}, attrs);
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    Tensor dy = Random<float>((*y)[0].shape(), 22);
    ExpectGpuMatchesCpu("MaxPoolGrad", {x, (*y)[0], dy}, attrs);
    ExpectGpuMatchesCpu("AvgPoolGrad", {Tensor::FromVector<int32_t>({4, 12, 12, 8}, {4}), dy}, attrs, 1e-5,
                        1e-6);
  }
}

}  // namespace
}  // namespace tact

// The GPU kernels of Cast, Fill, ZerosLike and OnesLike against the CPU
// kernels, over every pair of the dtypes a GPU device keeps in device
// memory, with the values C++ leaves undefined (NaN, huge) included.
// Skipped without a GPU.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "tests/gpu/gpu_test_util.h"
#include "tests/kernels/kernel_test_util.h"

namespace tact {
namespace {

const std::vector<DataType> kDeviceTypes = {DT_FLOAT, DT_DOUBLE, DT_HALF,
                                            DT_BFLOAT16, DT_INT64, DT_BOOL};

Tensor RandomOf(DataType dtype, const TensorShape& shape, uint32_t seed) {
  switch (dtype) {
    case DT_DOUBLE: return test::Random<double>(shape, seed, -100, 100);
    case DT_HALF: return test::Random<half>(shape, seed, -100, 100);
    case DT_BFLOAT16: return test::Random<bfloat16>(shape, seed, -100, 100);
    case DT_INT64: return test::Random<int64_t>(shape, seed, -100, 100);
    case DT_BOOL: return test::Random<bool>(shape, seed, 0, 1);
    default: return test::Random<float>(shape, seed, -100, 100);
  }
}

TEST(GpuCastTest, EveryPairOfDeviceTypesMatchesTheCpu) {
  TACT_REQUIRE_GPU();
  for (DataType src : kDeviceTypes) {
    for (DataType dst : kDeviceTypes) {
      for (const TensorShape& shape : {TensorShape({}), TensorShape({3, 7}),
                                       TensorShape({1 << 20})}) {
        SCOPED_TRACE(DataTypeString(src) + " -> " + DataTypeString(dst) + " " +
                     shape.DebugString());
        // Both devices round to nearest even: the results are the same bits.
        test::ExpectGpuMatchesCpu("Cast", {RandomOf(src, shape, 7)},
                                  {{"DstT", AttrValue::Type(dst)}}, 0, 0);
      }
    }
  }
}

TEST(GpuCastTest, NanAndHugeFloatsToInt64AreDefinedAsOnTheCpu) {
  TACT_REQUIRE_GPU();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  test::ExpectGpuMatchesCpu("Cast", {Tensor::FromVector<float>({nan, inf, -inf, 1e30f, -2.7f})},
                            {{"DstT", AttrValue::Type(DT_INT64)}}, 0, 0);
  test::ExpectGpuMatchesCpu("Cast", {Tensor::FromVector<float>({nan, 1e30f, 65520.f, -0.f})},
                            {{"DstT", AttrValue::Type(DT_HALF)}}, 0, 0);
}

TEST(GpuFillTest, FillZerosLikeAndOnesLikeMatchTheCpu) {
  TACT_REQUIRE_GPU();
  for (DataType dtype : kDeviceTypes) {
    SCOPED_TRACE(DataTypeString(dtype));
    for (const std::vector<int32_t>& dims :
         {std::vector<int32_t>{}, std::vector<int32_t>{3, 4}, std::vector<int32_t>{1 << 20},
          std::vector<int32_t>{0, 2}}) {
      test::ExpectGpuMatchesCpu("Fill", {Tensor::FromVector<int32_t>(dims),
                                         RandomOf(dtype, TensorShape({}), 3)},
                                {}, 0, 0);
    }
    for (const TensorShape& shape : {TensorShape({}), TensorShape({5, 3}), TensorShape({1 << 20})}) {
      test::ExpectGpuMatchesCpu("ZerosLike", {RandomOf(dtype, shape, 4)}, {}, 0, 0);
      test::ExpectGpuMatchesCpu("OnesLike", {RandomOf(dtype, shape, 5)}, {}, 0, 0);
    }
  }
}

TEST(GpuFillTest, ANegativeDimensionIsAnErrorNamingTheNode) {
  TACT_REQUIRE_GPU();
  StatusOr<std::vector<Tensor>> out = test::RunOpOnGpu(
      "Fill", {Tensor::FromVector<int32_t>({2, -1}), Tensor::Scalar<float>(1)});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kInvalidArgument) << out.status().ToString();
  test::ExpectError(out.status(), Code::kInvalidArgument, "test_Fill");
}

}  // namespace
}  // namespace tact

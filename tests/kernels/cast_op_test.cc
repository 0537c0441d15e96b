#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "graph/ops/core_ops.h"
#include "graph/ops/math_ops.h"
#include "tests/kernels/cwise_test_util.h"

namespace tact {
namespace {

const std::vector<DataType> kTypes = {
    DT_FLOAT, DT_DOUBLE, DT_HALF,   DT_BFLOAT16, DT_INT8,   DT_INT16,     DT_INT32,     DT_INT64,
    DT_UINT8, DT_UINT16, DT_UINT32, DT_UINT64,   DT_BOOL, DT_COMPLEX64, DT_COMPLEX128};

StatusOr<Tensor> Cast(const Tensor& x, DataType dst) {
  TACT_ASSIGN_OR_RETURN(std::vector<Tensor> out,
                        test::RunOp("Cast", {x}, {{"DstT", AttrValue::Type(dst)}}));
  return out[0];
}

Tensor MustCast(const Tensor& x, DataType dst, int threads = 2) {
  auto out = test::RunOp("Cast", {x}, {{"DstT", AttrValue::Type(dst)}}, threads);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? (*out)[0] : Tensor();
}

// A tensor of `dt` holding `values` (small non-negative integers, exact in every type).
Tensor Make(DataType dt, const std::vector<double>& values, const TensorShape& shape) {
  Tensor t(dt, shape);
  VisitDataType(dt, [&]<typename T>() {
    if constexpr (std::is_same_v<T, std::string>) {
    } else {
      for (size_t i = 0; i < values.size(); ++i) {
        if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
          t.data<T>()[i] = T(static_cast<float>(values[i]));
        } else if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>) {
          t.data<T>()[i] = T(static_cast<typename T::value_type>(values[i]), 0);
        } else {
          t.data<T>()[i] = static_cast<T>(values[i]);
        }
      }
    }
  });
  return t;
}

// Real parts for complex tensors; ToDoubles otherwise.
std::vector<double> Values(const Tensor& t) {
  if (t.dtype() == DT_COMPLEX64 || t.dtype() == DT_COMPLEX128) {
    std::vector<double> out;
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      out.push_back(t.dtype() == DT_COMPLEX64 ? t.data<complex64>()[i].real()
                                              : t.data<complex128>()[i].real());
    }
    return out;
  }
  return test::ToDoubles(t);
}

TEST(CastOpTest, EveryPairConvertsSmallIntegers) {
  const std::vector<double> values = {0, 1, 2, 3, 7, 100};
  const std::vector<double> bools = {0, 1, 1, 1, 1, 1};
  for (DataType src : kTypes) {
    const std::vector<double>& in = src == DT_BOOL ? std::vector<double>{0, 1, 1, 0, 1, 0} : values;
    Tensor x = Make(src, in, {2, 3});
    for (DataType dst : kTypes) {
      SCOPED_TRACE(DataTypeString(src) + " -> " + DataTypeString(dst));
      Tensor y = MustCast(x, dst);
      ASSERT_EQ(y.dtype(), dst);
      ASSERT_EQ(y.shape(), TensorShape({2, 3}));
      std::vector<double> want = in;
      if (dst == DT_BOOL && src != DT_BOOL) want = bools;
      EXPECT_EQ(Values(y), want);
    }
  }
}

TEST(CastOpTest, FloatToIntegerTruncatesAndSaturates) {
  const float inf = std::numeric_limits<float>::infinity();
  Tensor x = Tensor::FromVector<float>({2.9f, -3.7f, std::nanf(""), inf, -inf, 3e9f, -3e9f, -0.5f});
  Tensor i32 = MustCast(x, DT_INT32);
  const int32_t max = std::numeric_limits<int32_t>::max(), min = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(std::vector<int32_t>(i32.data<int32_t>(), i32.data<int32_t>() + 8),
            (std::vector<int32_t>{2, -3, 0, max, min, max, min, 0}));
  Tensor u8 = MustCast(Tensor::FromVector<double>({-1, 300, 255.9, 254.5, std::nan("")}), DT_UINT8);
  EXPECT_EQ(std::vector<uint8_t>(u8.data<uint8_t>(), u8.data<uint8_t>() + 5),
            (std::vector<uint8_t>{0, 255, 255, 254, 0}));
  Tensor i64 = MustCast(Tensor::FromVector<double>({1e19, -1e19, 9.2e18}), DT_INT64);
  EXPECT_EQ(i64.data<int64_t>()[0], std::numeric_limits<int64_t>::max());
  EXPECT_EQ(i64.data<int64_t>()[1], std::numeric_limits<int64_t>::min());
  EXPECT_EQ(i64.data<int64_t>()[2], static_cast<int64_t>(9.2e18));
  Tensor u64 = MustCast(Tensor::FromVector<double>({1.8e19, 2e19, -5}), DT_UINT64);
  EXPECT_EQ(u64.data<uint64_t>()[0], static_cast<uint64_t>(1.8e19));
  EXPECT_EQ(u64.data<uint64_t>()[1], std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(u64.data<uint64_t>()[2], 0u);
  // Through half: 70000 is out of half's range (inf), then saturates.
  Tensor h = MustCast(Tensor::FromVector<float>({70000.f, -2.5f}), DT_HALF);
  Tensor hi = MustCast(h, DT_INT16);
  EXPECT_EQ(hi.data<int16_t>()[0], std::numeric_limits<int16_t>::max());
  EXPECT_EQ(hi.data<int16_t>()[1], -2);
}

TEST(CastOpTest, IntegersWrapAndBoolsAreZeroOrOne) {
  Tensor i8 = MustCast(Tensor::FromVector<int32_t>({300, -1, 127, 128}), DT_INT8);
  EXPECT_EQ(std::vector<int8_t>(i8.data<int8_t>(), i8.data<int8_t>() + 4),
            (std::vector<int8_t>{44, -1, 127, -128}));
  Tensor u8 = MustCast(Tensor::FromVector<int64_t>({-1, 256}), DT_UINT8);
  EXPECT_EQ(u8.data<uint8_t>()[0], 255);
  EXPECT_EQ(u8.data<uint8_t>()[1], 0);
  Tensor s = MustCast(Tensor::FromVector<uint64_t>({std::numeric_limits<uint64_t>::max()}), DT_INT64);
  EXPECT_EQ(s.data<int64_t>()[0], -1);
  Tensor b = MustCast(Tensor::FromVector<float>({0.f, -0.f, 0.25f, std::nanf("")}), DT_BOOL);
  EXPECT_EQ(std::vector<bool>(b.data<bool>(), b.data<bool>() + 4),
            (std::vector<bool>{false, false, true, true}));
}

TEST(CastOpTest, ComplexAndHalfPrecision) {
  Tensor c = Tensor::FromVector<complex64>({complex64(1.5f, 2.f), complex64(0.f, 3.f)});
  Tensor re = MustCast(c, DT_DOUBLE);
  EXPECT_EQ(re.data<double>()[0], 1.5);
  EXPECT_EQ(re.data<double>()[1], 0.0);
  Tensor nz = MustCast(c, DT_BOOL);
  EXPECT_TRUE(nz.data<bool>()[0]);
  EXPECT_TRUE(nz.data<bool>()[1]);  // non-zero imaginary part
  Tensor wide = MustCast(c, DT_COMPLEX128);
  EXPECT_EQ(wide.data<complex128>()[0], complex128(1.5, 2.0));
  Tensor z = MustCast(Tensor::Scalar<float>(2.5f), DT_COMPLEX64);
  EXPECT_EQ(z.scalar<complex64>(), complex64(2.5f, 0.f));
  Tensor x = test::Random<float>({50}, 3);
  for (DataType low : {DT_HALF, DT_BFLOAT16}) {
    SCOPED_TRACE(DataTypeString(low));
    Tensor back = MustCast(MustCast(x, low), DT_FLOAT);
    test::ExpectClose(back, {50}, test::ToDoubles(x), low == DT_HALF ? 1e-3 : 8e-3, 0);
  }
}

TEST(CastOpTest, RandomFloatsRankZeroAndEmpty) {
  for (const TensorShape& shape : std::vector<TensorShape>{{}, {0}, {3, 0}, {4, 5}}) {
    SCOPED_TRACE(shape.DebugString());
    Tensor x = test::Random<double>(shape, 5, -100, 100);
    test::ExpectClose(MustCast(x, DT_FLOAT), shape, test::ToDoubles(x), 1e-7, 0);
    std::vector<double> trunc = test::ToDoubles(x);
    for (double& v : trunc) v = std::trunc(v);
    test::ExpectClose(MustCast(x, DT_INT32), shape, trunc, 0, 0);
  }
}

TEST(CastOpTest, SameTypeSharesTheBuffer) {
  Tensor x = test::Random<float>({3}, 1);
  EXPECT_TRUE(MustCast(x, DT_FLOAT).SharesBufferWith(x));
}

TEST(CastOpTest, UnsupportedTypesAreErrors) {
  auto out = Cast(Tensor::Scalar<std::string>("1"), DT_FLOAT);
  EXPECT_EQ(out.status().code(), Code::kNotFound) << out.status().ToString();
  out = Cast(Tensor::Scalar<float>(1), DT_STRING);
  EXPECT_EQ(out.status().code(), Code::kNotFound) << out.status().ToString();
  out = test::RunOp("Cast", {Tensor::Scalar<float>(1)}).status();
  test::ExpectError(out.status(), Code::kInvalidArgument, "DstT");
}

TEST(CastOpTest, ThreadedMatchesSingleThreadBitForBit) {
  Tensor x = test::Random<float>({300, 1000}, 2, -300, 300);
  for (DataType dst : {DT_INT8, DT_DOUBLE, DT_HALF}) {
    SCOPED_TRACE(DataTypeString(dst));
    EXPECT_TRUE(MustCast(x, dst, 1).BitwiseEqual(MustCast(x, dst, 4)));
  }
}

TEST(CastOpTest, BuilderSetsSrcTAndDstT) {
  Scope s = Scope::NewRootScope();
  Output y = ::tact::Cast(s, Placeholder(s, DT_INT32), DT_FLOAT);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(y.type(), DT_FLOAT);
  EXPECT_EQ(y.node->attrs().at("SrcT").type(), DT_INT32);
}

}  // namespace
}  // namespace tact

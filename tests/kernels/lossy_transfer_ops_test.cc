// The lossy float32 transfer kernels (paper 5.5) against the rule, bit for
// bit: the sender keeps a float's upper 16 bits, the receiver appends 16
// zero bits. Plain truncation: no rounding, whatever the value.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "tests/kernels/kernel_test_util.h"

namespace tact {
namespace {

uint32_t Bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
float FromBits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

// Every special kind of value, by its bits, and some seeded random patterns.
std::vector<uint32_t> Patterns() {
  std::vector<uint32_t> p = {
      0x00000000u,  // +0
      0x80000000u,  // -0
      0x3f800000u,  // 1
      0xbf800000u,  // -1
      0x3f80ffffu,  // 1 + tiny: low bits set, truncated away
      0x3fffffffu,  // 1.9999999: would round up to 2 with rounding
      0xc0490fdbu,  // -pi
      0x00000001u,  // smallest positive denormal: all in the low bits
      0x00010000u,  // a denormal with a bit in the upper half
      0x807fffffu,  // largest negative denormal
      0x7f7fffffu,  // largest finite float: would round to inf
      0xff7fffffu,  // lowest finite float
      0x7f800000u,  // +inf
      0xff800000u,  // -inf
      0x7fc00000u,  // quiet NaN
      0xffc12345u,  // negative quiet NaN with a payload in both halves
      0x7f810000u,  // signalling NaN, payload in the upper half: stays NaN
      0x7f800001u,  // signalling NaN, payload only in the low bits: becomes +inf
  };
  std::mt19937 gen(55);
  for (int i = 0; i < 4096; ++i) p.push_back(static_cast<uint32_t>(gen()));
  return p;
}

Tensor FloatsFromBits(const std::vector<uint32_t>& bits) {
  Tensor t(DT_FLOAT, {static_cast<int64_t>(bits.size())});
  for (size_t i = 0; i < bits.size(); ++i) t.data<float>()[i] = FromBits(bits[i]);
  return t;
}

TEST(LossyTransferOpsTest, TruncateKeepsExactlyTheUpperSixteenBits) {
  const std::vector<uint32_t> bits = Patterns();
  auto out = test::RunOp("_TruncateToUpper16", {FloatsFromBits(bits)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const Tensor& y = (*out)[0];
  ASSERT_EQ(y.dtype(), DT_BFLOAT16);
  ASSERT_EQ(y.shape(), TensorShape({static_cast<int64_t>(bits.size())}));
  for (size_t i = 0; i < bits.size(); ++i) {
    ASSERT_EQ(y.data<bfloat16>()[i].bits, bits[i] >> 16) << "pattern " << std::hex << bits[i];
  }
}

TEST(LossyTransferOpsTest, ExpandPutsSixteenZeroBitsUnderneath) {
  Tensor x(DT_BFLOAT16, {65536});
  for (uint32_t i = 0; i < 65536; ++i) x.data<bfloat16>()[i].bits = static_cast<uint16_t>(i);
  auto out = test::RunOp("_ExpandFromUpper16", {x});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const Tensor& y = (*out)[0];
  ASSERT_EQ(y.dtype(), DT_FLOAT);
  for (uint32_t i = 0; i < 65536; ++i) ASSERT_EQ(Bits(y.data<float>()[i]), i << 16) << i;
}

TEST(LossyTransferOpsTest, RoundTripZeroesTheLowBitsOfEveryValue) {
  const std::vector<uint32_t> bits = Patterns();
  auto t = test::RunOp("_TruncateToUpper16", {FloatsFromBits(bits)});
  ASSERT_TRUE(t.ok());
  auto back = test::RunOp("_ExpandFromUpper16", {(*t)[0]});
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  const float* y = (*back)[0].data<float>();
  for (size_t i = 0; i < bits.size(); ++i) {
    ASSERT_EQ(Bits(y[i]), bits[i] & 0xffff0000u) << "pattern " << std::hex << bits[i];
  }
  // What that means for the special values, spelled out.
  EXPECT_EQ(Bits(y[1]), 0x80000000u);                 // -0 stays -0
  EXPECT_EQ(y[4], 1.0f);                              // truncated, not rounded
  EXPECT_EQ(Bits(y[5]), 0x3fff0000u);                 // 1.9921875, not 2
  EXPECT_EQ(Bits(y[7]), 0u);                          // a low-bits denormal flushes to +0
  EXPECT_EQ(Bits(y[8]), 0x00010000u);                 // this denormal survives
  EXPECT_EQ(Bits(y[9]), 0x807f0000u);                 // and keeps its sign
  EXPECT_TRUE(std::isfinite(y[10]));                  // max float does not overflow
  EXPECT_EQ(y[12], std::numeric_limits<float>::infinity());
  EXPECT_EQ(y[13], -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(y[14]));
  EXPECT_EQ(Bits(y[15]), 0xffc10000u);                // NaN keeps its upper payload
  EXPECT_TRUE(std::isnan(y[16]));
  EXPECT_EQ(y[17], std::numeric_limits<float>::infinity());  // the rule's consequence
}

TEST(LossyTransferOpsTest, EmptyAndLargeTensors) {
  auto empty = test::RunOp("_TruncateToUpper16", {Tensor(DT_FLOAT, {0, 3})});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ((*empty)[0].shape(), TensorShape({0, 3}));
  // Large enough to be split over the device's threads: every block right.
  Tensor big = test::Random<float>({1 << 20}, 9, -1e6, 1e6);
  auto t = test::RunOp("_TruncateToUpper16", {big}, {}, 4);
  ASSERT_TRUE(t.ok());
  auto back = test::RunOp("_ExpandFromUpper16", {(*t)[0]}, {}, 4);
  ASSERT_TRUE(back.ok());
  for (int64_t i = 0; i < big.NumElements(); ++i) {
    ASSERT_EQ(Bits((*back)[0].data<float>()[i]), Bits(big.data<float>()[i]) & 0xffff0000u) << i;
  }
}

}  // namespace
}  // namespace tact

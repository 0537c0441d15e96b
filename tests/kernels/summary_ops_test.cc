// The summary kernels' bytes and errors; tests/apps/events_file_test.cc
// reads what they make with protobuf's own parser.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <random>

#include "kernels/summary_proto.h"
#include "tests/kernels/kernel_test_util.h"

namespace tact {
namespace {

Tensor Strings(const std::vector<std::string>& v, const TensorShape& shape) {
  Tensor t(DT_STRING, shape);
  for (size_t i = 0; i < v.size(); ++i) t.data<std::string>()[i] = v[i];
  return t;
}

std::string Only(const StatusOr<std::vector<Tensor>>& out) {
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? (*out)[0].scalar<std::string>() : std::string();
}

TEST(SummaryOpsTest, AScalarSummaryIsProtobufsBytesForEachValue) {
  // Summary { value { tag: "a" simple_value: 1.5 } value { tag: "bc" simple_value: -2 } }:
  // field 1 (length-delimited, key 0x0a) holding a Value of field 1, the
  // tag, and field 2 (32-bit, key 0x15), the float, little-endian.
  const std::string want("\x0a\x08\x0a\x01" "a" "\x15\x00\x00\xc0\x3f"
                         "\x0a\x09\x0a\x02" "bc" "\x15\x00\x00\x00\xc0", 21);
  EXPECT_EQ(Only(test::RunOp("ScalarSummary", {Strings({"a", "bc"}, {2}),
                                               Tensor::FromVector<float>({1.5f, -2.0f}, {2})})),
            want);
  // Every element type is written as its float.
  for (const Tensor& values : {Tensor::FromVector<int32_t>({3}, {1}), Tensor::FromVector<double>({3.0}, {1}),
                               Tensor::FromVector<int64_t>({3}, {1})}) {
    EXPECT_EQ(Only(test::RunOp("ScalarSummary", {Strings({"a"}, {1}), values})),
              summary::Scalar("a", 3.0f));
  }
  Tensor h(DT_HALF, TensorShape({1}));
  h.data<half>()[0] = half(0.5f);
  EXPECT_EQ(Only(test::RunOp("ScalarSummary", {Strings({"h"}, {1}), h})), summary::Scalar("h", 0.5f));
}

// Each number counts in the bucket a binary search over the limits finds
// (the first limit above it): on the limits themselves, a hair either side
// of them, across the whole range and at its ends.
TEST(SummaryOpsTest, EveryNumberCountsInTheBucketABinarySearchFinds) {
  const std::vector<double>& limits = summary::Histogram::Limits();
  ASSERT_EQ(limits.front(), -DBL_MAX);
  ASSERT_EQ(limits[limits.size() / 2], 0.0);
  ASSERT_EQ(limits.back(), DBL_MAX);
  std::vector<double> values = {0.0, -0.0, DBL_MAX, -DBL_MAX, 1e-300, -1e-300, 1e300, -1e300, 5e-13, 3e25};
  for (double limit : limits) {
    for (double v : {limit, std::nextafter(limit, -DBL_MAX), std::nextafter(limit, DBL_MAX)}) {
      values.push_back(v);
    }
  }
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> exponent(-14, 22);
  for (int i = 0; i < 20000; ++i) values.push_back((i % 2 ? -1 : 1) * std::pow(10.0, exponent(gen)));
  for (double v : values) {
    summary::Histogram h;
    h.Add(v);
    const size_t want = std::min<size_t>(std::upper_bound(limits.begin(), limits.end(), v) - limits.begin(),
                                         limits.size() - 1);
    ASSERT_EQ(h.counts()[want], 1.0) << std::hexfloat << v;
  }
}

TEST(SummaryOpsTest, TagsAndValuesOfTwoShapesAreRefused) {
  auto out =
      test::RunOp("ScalarSummary", {Strings({"a", "b"}, {2}), Tensor::FromVector<float>({1, 2, 3}, {3})});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("tags [2] and values [3] are not of one shape"), std::string::npos)
      << out.status().ToString();
}

TEST(SummaryOpsTest, AHistogramOfANaNOrAnInfinityIsRefusedNamingIt) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (float bad : {nan, -inf}) {
    auto out = test::RunOp("HistogramSummary", {Tensor::Scalar<std::string>("w\x1b"),
                                                Tensor::FromVector<float>({1, bad, 2}, {3})});
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), Code::kInvalidArgument);
    EXPECT_NE(out.status().message().find(std::string(std::isnan(bad) ? "NaN" : "infinity") +
                                          " at element 1 of histogram 'w\\x1b'"),
              std::string::npos)
        << out.status().ToString();
  }
  auto vector_tag =
      test::RunOp("HistogramSummary", {Strings({"a", "b"}, {2}), Tensor::FromVector<float>({1}, {1})});
  EXPECT_FALSE(vector_tag.ok());
}

TEST(SummaryOpsTest, MergeSummaryConcatenatesValuesAndRefusesATagTwice) {
  const std::string a = summary::Scalar("a", 1), b = summary::Scalar("b", 2), c = summary::Scalar("c", 3);
  summary::Histogram h;
  h.Add(1.0);
  const std::string hist = h.Encode("h");
  const std::string merged =
      Only(test::RunOp("MergeSummary", {Tensor::Scalar<std::string>(a), Strings({b + c, hist}, {2})}));
  EXPECT_EQ(merged, a + b + c + hist);
  EXPECT_EQ(*summary::Tags(merged), (std::vector<std::string>{"a", "b", "c", "h"}));

  auto twice =
      test::RunOp("MergeSummary", {Tensor::Scalar<std::string>(a + b), Tensor::Scalar<std::string>(b)});
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("tag 'b' is in two of the summaries merged"), std::string::npos)
      << twice.status().ToString();

  auto garbage = test::RunOp("MergeSummary",
                             {Tensor::Scalar<std::string>(a), Tensor::Scalar<std::string>("\x0a\x7f")});
  ASSERT_FALSE(garbage.ok());
  EXPECT_NE(garbage.status().message().find("input 1: a summary of 2 bytes is not a Summary message"),
            std::string::npos)
      << garbage.status().ToString();
}

// Summary bytes from elsewhere (a MergeSummary input is any string
// tensor) are parsed, never trusted: every cut of a real summary and
// random bytes parse or are refused, without reading past their end.
TEST(SummaryOpsTest, TagsOfCutAndRandomBytesAreParsedOrRefused) {
  summary::Histogram h;
  h.Add(-1.0);
  h.Add(3.0);
  const std::string real = summary::Scalar("loss", 1) + h.Encode("weights");
  for (size_t n = 0; n < real.size(); ++n) {
    StatusOr<std::vector<std::string>> tags = summary::Tags(real.substr(0, n));
    if (tags.ok()) EXPECT_LE(tags->size(), 1u) << n;
  }
  EXPECT_EQ(*summary::Tags(real), (std::vector<std::string>{"loss", "weights"}));
  std::mt19937 gen(11);
  int refused = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string bytes(gen() % 24, '\0');
    for (char& c : bytes) c = static_cast<char>(gen());
    refused += summary::Tags(bytes).ok() ? 0 : 1;
  }
  EXPECT_GT(refused, 10000);
}

}  // namespace
}  // namespace tact

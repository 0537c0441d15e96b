// Range: sizes and values against a plain loop for every dtype, both
// directions, and the errors of a zero or wrong-signed delta.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace tact {
namespace {

template <typename T>
void CheckRange(T start, T limit, T delta) {
  auto out = test::RunOp("Range", {Tensor::Scalar<T>(start), Tensor::Scalar<T>(limit),
                                   Tensor::Scalar<T>(delta)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  std::vector<double> want;
  for (double v = start; delta > 0 ? v < limit : v > limit; v += delta) want.push_back(v);
  SCOPED_TRACE(std::to_string(start) + " " + std::to_string(limit) + " " + std::to_string(delta));
  test::ExpectClose((*out)[0], {static_cast<int64_t>(want.size())}, want, 1e-6, 1e-6);
}

TEST(RangeOpTest, MatchesALoop) {
  CheckRange<int32_t>(0, 10, 3);
  CheckRange<int32_t>(0, 9, 3);
  CheckRange<int32_t>(10, 0, -3);
  CheckRange<int32_t>(-5, 5, 1);
  CheckRange<int32_t>(4, 4, 1);   // empty
  CheckRange<int32_t>(4, 4, -1);  // empty
  CheckRange<int64_t>(int64_t{1} << 40, (int64_t{1} << 40) + 7, 2);
  CheckRange<float>(0.f, 1.f, 0.25f);
  CheckRange<float>(1.f, -1.f, -0.3f);
  CheckRange<double>(0.5, 100.0, 0.7);
  CheckRange<double>(0, 0, 1);
}

TEST(RangeOpTest, IntegerExtremesDoNotOverflow) {
  const int32_t lo = std::numeric_limits<int32_t>::min();
  const int32_t hi = std::numeric_limits<int32_t>::max();
  auto out = test::RunOp("Range", {Tensor::Scalar<int32_t>(lo), Tensor::Scalar<int32_t>(hi),
                                   Tensor::Scalar<int32_t>(hi)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  test::ExpectClose((*out)[0], {3}, {double(lo), double(lo) + hi, double(lo) + 2.0 * hi}, 0, 0);
}

TEST(RangeOpTest, Errors) {
  auto run = [](auto start, auto limit, auto delta) {
    using T = decltype(start);
    return test::RunOp("Range", {Tensor::Scalar<T>(start), Tensor::Scalar<T>(limit),
                                 Tensor::Scalar<T>(delta)}).status();
  };
  test::ExpectError(run(0, 5, 0), Code::kInvalidArgument, "Range requires delta != 0");
  test::ExpectError(run(0.0f, 5.0f, 0.0f), Code::kInvalidArgument, "Range requires delta != 0");
  test::ExpectError(run(5, 0, 1), Code::kInvalidArgument,
                    "requires start <= limit when delta > 0, got start 5 and limit 0");
  test::ExpectError(run(0.0, 5.0, -1.0), Code::kInvalidArgument,
                    "requires start >= limit when delta < 0");
  test::ExpectError(run(0.0, INFINITY, 1.0), Code::kInvalidArgument, "finite");
  test::ExpectError(run(int64_t{0}, int64_t{1} << 62, int64_t{1}), Code::kResourceExhausted, "");
  test::ExpectError(run(0.0, 1e300, 1e-300), Code::kInvalidArgument, "too many elements");
  test::ExpectError(test::RunOp("Range", {Tensor::FromVector<int32_t>({0}), Tensor::Scalar<int32_t>(3),
                                          Tensor::Scalar<int32_t>(1)}).status(),
                    Code::kInvalidArgument, "start must be a scalar, got shape [1]");
  test::ExpectError(test::RunOp("Range", {Tensor::Scalar<bool>(false), Tensor::Scalar<bool>(true),
                                          Tensor::Scalar<bool>(true)}).status(),
                    Code::kInvalidArgument, "attr 'Tidx' = bool");
}

}  // namespace
}  // namespace tact

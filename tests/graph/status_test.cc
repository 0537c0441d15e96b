#include "graph/status.h"

#include <gtest/gtest.h>

namespace tact {
namespace {

TEST(StatusTest, OkIsDefaultAndCheap) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), Code::kOk);
  EXPECT_EQ(s.ToString(), "OK");
  EXPECT_EQ(s.message(), "");
}

TEST(StatusTest, ErrorCarriesCodeAndMessage) {
  Status s = errors::InvalidArgument("node '", "x", "' has ", 3, " inputs");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_EQ(s.message(), "node 'x' has 3 inputs");
  EXPECT_EQ(s.ToString(), "InvalidArgument: node 'x' has 3 inputs");
  EXPECT_EQ(s.WithPrefix("a: ").message(), "a: node 'x' has 3 inputs");
  EXPECT_EQ(s.WithPrefix("a: ").code(), Code::kInvalidArgument);
}

TEST(StatusTest, EveryCodeHasAName) {
  EXPECT_STREQ(CodeName(Code::kDataLoss), "DataLoss");
  EXPECT_STREQ(CodeName(Code::kUnavailable), "Unavailable");
  EXPECT_STREQ(CodeName(Code::kAborted), "Aborted");
  EXPECT_STREQ(CodeName(Code::kFailedPrecondition), "FailedPrecondition");
  EXPECT_EQ(errors::NotFound("x").code(), Code::kNotFound);
  EXPECT_EQ(errors::Internal("x").code(), Code::kInternal);
}

StatusOr<int> Half(int x) {
  if (x % 2) return errors::InvalidArgument(x, " is odd");
  return x / 2;
}

Status UseHalf(int x, int* out) {
  TACT_ASSIGN_OR_RETURN(int h, Half(x));
  TACT_RETURN_IF_ERROR(h > 10 ? errors::OutOfRange("too big") : Status::OK());
  *out = h;
  return Status::OK();
}

TEST(StatusOrTest, ValueOrError) {
  StatusOr<int> a = Half(8);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, 4);
  StatusOr<int> b = Half(7);
  EXPECT_FALSE(b.ok());
  EXPECT_EQ(b.status().message(), "7 is odd");
  int out = 0;
  EXPECT_TRUE(UseHalf(8, &out).ok());
  EXPECT_EQ(out, 4);
  EXPECT_EQ(UseHalf(7, &out).code(), Code::kInvalidArgument);
  EXPECT_EQ(UseHalf(40, &out).code(), Code::kOutOfRange);
}

TEST(StatusOrTest, OkStatusWithoutValueIsAnError) {
  StatusOr<int> s = Status::OK();
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kInternal);
}

}  // namespace
}  // namespace tact

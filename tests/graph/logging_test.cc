// Log levels: named ones set the threshold (and the environment children
// inherit), a bad name is refused naming it, and warnings show by default.
#include "graph/logging.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace tact {
namespace {

TEST(LoggingTest, LevelsSetTheThresholdAndTheChildrensEnvironment) {
  EXPECT_TRUE(LogEnabled(LogLevel::kWarning));  // the default (no TACT_LOG_LEVEL in tests)
  EXPECT_FALSE(LogEnabled(LogLevel::kInfo));

  ASSERT_TRUE(SetLogLevel("error").ok());
  EXPECT_FALSE(LogEnabled(LogLevel::kWarning));
  EXPECT_TRUE(LogEnabled(LogLevel::kError));
  EXPECT_STREQ(std::getenv("TACT_LOG_LEVEL"), "error");

  ASSERT_TRUE(SetLogLevel("debug").ok());
  EXPECT_TRUE(LogEnabled(LogLevel::kDebug));
  EXPECT_FALSE(LogEnabled(LogLevel::kOff));

  const Status bad = SetLogLevel("loud");
  EXPECT_EQ(bad.code(), Code::kInvalidArgument);
  EXPECT_NE(bad.message().find("'loud'"), std::string::npos) << bad.message();
  EXPECT_TRUE(LogEnabled(LogLevel::kDebug));  // unchanged by the refusal

  ASSERT_TRUE(SetLogLevel("warning").ok());
  unsetenv("TACT_LOG_LEVEL");
}

}  // namespace
}  // namespace tact

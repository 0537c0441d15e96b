#include "devices/flush_denormal.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <future>
#include <thread>

#include "devices/compute_pool.h"

namespace tact {
namespace {

// 0.1 * the smallest normal float: a denormal, or 0 where denormals are
// flushed. volatile keeps the compiler from folding it.
float TenthOfTiny() {
  volatile float tiny = FLT_MIN;
  volatile float tenth = 0.1f;
  return tiny * tenth;
}

double TenthOfTinyDouble() {
  volatile double tiny = DBL_MIN;
  volatile double tenth = 0.1;
  return tiny * tenth;
}

#if defined(__SSE__)
TEST(FlushDenormalTest, AScopeFlushesBothWidthsAndPutsBackWhatTheThreadHad) {
  ASSERT_GT(TenthOfTiny(), 0.0f) << "this thread flushed before the test";
  {
    ScopedFlushDenormal flush;
    EXPECT_EQ(TenthOfTiny(), 0.0f);
    EXPECT_EQ(TenthOfTinyDouble(), 0.0);
    {
      ScopedFlushDenormal nested;  // already set: a no-op that must not undo the outer one
      EXPECT_EQ(TenthOfTiny(), 0.0f);
    }
    EXPECT_EQ(TenthOfTiny(), 0.0f);
  }
  EXPECT_GT(TenthOfTiny(), 0.0f);
  EXPECT_GT(TenthOfTinyDouble(), 0.0);
}

TEST(FlushDenormalTest, AThreadOfTheComputePoolFlushesFromItsStartAndNoOtherThreadDoes) {
  ComputePool pool(2);
  std::promise<float> on_pool;
  pool.Schedule([&] { on_pool.set_value(TenthOfTiny()); });
  EXPECT_EQ(on_pool.get_future().get(), 0.0f);
  float on_plain_thread = -1;
  std::thread([&] { on_plain_thread = TenthOfTiny(); }).join();
  EXPECT_GT(on_plain_thread, 0.0f);
  EXPECT_GT(TenthOfTiny(), 0.0f);
}
#endif

}  // namespace
}  // namespace tact

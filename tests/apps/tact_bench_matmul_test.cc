// `tact bench matmul` as a user runs it: one JSON line with each figure's
// spread over the runs, the FMA peak measured after each phase, and the
// ratio taken per peak, which is the plain ratio scaled by the two phases'
// peaks. The times are not judged (benchmarks are not timed tests).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/apps/run_command.h"

namespace tact {
namespace {

TEST(TactBenchMatmulTest, EveryRunHasItsPhasesPeaksAndTheRatioPerPeak) {
  test::CommandResult r = test::RunCommand(std::string(TACT_BINARY) +
                                           " bench matmul --n 96 --threads 2 --runs 3 --reps 2 --json 2>&1");
  ASSERT_EQ(r.status, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  for (const char* figure : {"kernel_over_direct", "kernel_gflops", "direct_gflops", "kernel_over_direct_per_peak",
                             "fma_peak_gflops_kernel_phase", "fma_peak_gflops_direct_phase"}) {
    ASSERT_TRUE(j.contains(figure)) << figure << ": " << j.dump();
    ASSERT_EQ(j[figure]["runs"].size(), 3u) << figure;
    for (double v : j[figure]["runs"]) EXPECT_GT(v, 0) << figure;
  }
  for (int run = 0; run < 3; ++run) {
    const double kernel = j["kernel_gflops"]["runs"][run], direct = j["direct_gflops"]["runs"][run];
    const double kernel_peak = j["fma_peak_gflops_kernel_phase"]["runs"][run];
    const double direct_peak = j["fma_peak_gflops_direct_phase"]["runs"][run];
    EXPECT_NEAR(j["kernel_over_direct"]["runs"][run].get<double>(), kernel / direct, 1e-9 * kernel / direct);
    const double per_peak = (kernel / kernel_peak) / (direct / direct_peak);
    EXPECT_NEAR(j["kernel_over_direct_per_peak"]["runs"][run].get<double>(), per_peak, 1e-9 * per_peak);
  }
}

TEST(TactBenchMatmulTest, TheTextLineNamesTheWorstRunPerPeak) {
  test::CommandResult r =
      test::RunCommand(std::string(TACT_BINARY) + " bench matmul --n 32 --threads 1 --runs 2 --reps 1 2>&1");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("per FMA peak measured beside each phase: worst run"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace tact

// Flags of the training benchmarks that would measure something else than
// asked are refused before anything runs: `--steps 0` used to be read as
// "the whole epoch" (TrainOptions::data.max_steps) and reported as 0 steps.
#include <gtest/gtest.h>

#include <string>

#include "tests/apps/run_command.h"

namespace tact {
namespace {

TEST(TactBenchFlagsTest, StepsBelowOneAreRefusedNamingTheFlag) {
  for (const char* bench : {"distributed", "train"}) {
    for (const char* steps : {"0", "-5"}) {
      const std::string cmd =
          std::string(TACT_BINARY) + " bench " + bench + " --steps=" + steps + " --json 2>&1";
      test::CommandResult r = test::RunCommand(cmd);
      EXPECT_NE(r.status, 0) << cmd << ": " << r.out;
      EXPECT_NE(r.out.find("--steps"), std::string::npos) << cmd << ": " << r.out;
      EXPECT_EQ(r.out.find("images_per_sec"), std::string::npos) << cmd << " measured: " << r.out;
    }
  }
}

}  // namespace
}  // namespace tact

// Flags that would do something else than asked are refused before
// anything runs, naming the flag.
#include <gtest/gtest.h>

#include <string>

#include "tests/apps/run_command.h"

namespace tact {
namespace {

// `--steps 0` of a training benchmark used to be read as "the whole epoch"
// (TrainOptions::data.max_steps) and reported as 0 steps.
TEST(TactFlagsTest, BenchStepsBelowOneAreRefused) {
  for (const char* bench : {"distributed", "train", "async"}) {
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

// `tact bench sendrecv --reps 0` took the median of no times: a crash
// (SIGSEGV, exit 139).
TEST(TactFlagsTest, SendRecvRepsBelowOneAreRefused) {
  for (const char* reps : {"0", "-1"}) {
    const std::string cmd = std::string(TACT_BINARY) + " bench sendrecv --reps=" + reps + " --json 2>&1";
    test::CommandResult r = test::RunCommand(cmd);
    EXPECT_NE(r.status, 0) << cmd << ": " << r.out;
    EXPECT_LT(r.status, 128) << cmd << " was killed by a signal (the shell says 128 + it): " << r.out;
    EXPECT_NE(r.out.find("--reps: Value " + std::string(reps) + " not in range"), std::string::npos)
        << cmd << ": " << r.out;
  }
}

// -1 is `tact worker`'s "not given" (then the spec's task.index): given,
// it was answered "which task is this?".
TEST(TactFlagsTest, ANegativeWorkerTaskIsRefused) {
  const std::string cmd = std::string(TACT_BINARY) + " worker --cluster /nonexistent --job ps --task=-1 2>&1";
  test::CommandResult r = test::RunCommand(cmd);
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("--task: Value -1 not in range"), std::string::npos) << r.out;
}

// More compute threads than a process can start aborted `tact train`
// (std::system_error) after minutes of starting threads.
TEST(TactFlagsTest, MoreComputeThreadsThanAProcessMayStartAreRefused) {
  for (const char* flags : {"--threads 100000", "--devices 100000", "--devices 64 --threads 256"}) {
    const std::string cmd = std::string(TACT_BINARY) + " train --model mlp --max-steps 1 " + flags + " 2>&1";
    test::CommandResult r = test::RunCommand(cmd);
    EXPECT_EQ(r.status, 1) << cmd << ": " << r.out;
    EXPECT_NE(r.out.find("compute threads each would start"), std::string::npos) << cmd << ": " << r.out;
  }
}

// Text beyond 64 bits was read as the largest 64-bit value, silently: a
// seed of 2^64 trained with seed 2^64 - 1.
TEST(TactFlagsTest, IntegersBeyond64BitsAreRefusedNamingTheFlag) {
  const struct {
    const char* args;
    const char* message;
  } cases[] = {
      {"train --seed 18446744073709551616",
       "--seed: value 18446744073709551616 does not fit in a non-negative 64-bit integer"},
      {"train --max-steps 9223372036854775808",
       "--max-steps: value 9223372036854775808 does not fit in a 64-bit integer"},
  };
  for (const auto& c : cases) {
    const std::string cmd = std::string(TACT_BINARY) + " " + c.args + " --data-dir /nonexistent 2>&1";
    test::CommandResult r = test::RunCommand(cmd);
    EXPECT_NE(r.status, 0) << cmd << ": " << r.out;
    EXPECT_NE(r.out.find(c.message), std::string::npos) << cmd << ": " << r.out;
  }
  // The largest values still fit.
  const std::string largest = std::string(TACT_BINARY) +
                              " train --seed 18446744073709551615 --max-steps 9223372036854775807 --data-dir "
                              "/nonexistent 2>&1";
  test::CommandResult r = test::RunCommand(largest);
  EXPECT_EQ(r.out.find("does not fit"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("/nonexistent"), std::string::npos) << r.out;  // refused for the data, not the flags
}

// What a command prints is its result: on a full disk (/dev/full) it used
// to be lost with exit status 0.
TEST(TactOutputTest, OutputThatCannotBeWrittenExitsOneSayingSo) {
  for (const char* args : {"example", "--help", "ckpt ls /tmp"}) {
    const std::string cmd = std::string(TACT_BINARY) + " " + args + " 2>&1 > /dev/full";
    test::CommandResult r = test::RunCommand(cmd);
    EXPECT_EQ(r.status, 1) << cmd << ": " << r.out;
    EXPECT_NE(r.out.find("tact: cannot write its output: No space left on device"), std::string::npos)
        << cmd << ": " << r.out;
    EXPECT_EQ(test::RunCommand(std::string(TACT_BINARY) + " " + args + " > /dev/null").status, 0) << args;
  }
}

}  // namespace
}  // namespace tact

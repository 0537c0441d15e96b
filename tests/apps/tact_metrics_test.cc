// `tact train --metrics` as a user runs it: the JSON lines a run appends,
// read back against the run's own summary line, and continued by a run
// that resumes from the first one's checkpoint.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "apps/train/train_options.h"
#include "tests/apps/run_command.h"

namespace tact::apps {
namespace {

namespace fs = std::filesystem;

double UnixSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

nlohmann::json LastLine(const std::string& out) {
  std::string last = out.substr(0, out.size() - 1);
  return nlohmann::json::parse(last.substr(last.rfind('\n') + 1), nullptr, false);
}

std::vector<nlohmann::json> ReadLines(const std::string& path) {
  std::vector<nlohmann::json> lines;
  std::ifstream f(path);
  for (std::string line; std::getline(f, line);) {
    lines.push_back(nlohmann::json::parse(line, nullptr, false));
    EXPECT_FALSE(lines.back().is_discarded()) << line;
  }
  return lines;
}

TEST(TactMetricsTest, EveryStepAndEpochAppendedAndAResumedRunContinuesTheCurve) {
  if (!fs::exists(std::string(kDefaultDataDir) + "/t10k-images-idx3-ubyte.gz")) GTEST_SKIP() << "no data";
  const fs::path dir = fs::path(::testing::TempDir()) / ("tact_metrics_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string metrics = (dir / "metrics.jsonl").string();
  // 15 steps an epoch.
  const std::string run = std::string(TACT_BINARY) +
                          " train --model mlp --train-limit 1500 --test-limit 300 " + "--checkpoint-dir " +
                          (dir / "ck").string() + " --metrics " + metrics + " --json";
  const double before = UnixSeconds();
  test::CommandResult first = test::RunCommand(run + " --epochs 2 2>&1");
  const double after = UnixSeconds();
  ASSERT_EQ(first.status, 0) << first.out;
  const nlohmann::json summary = LastLine(first.out);
  ASSERT_FALSE(summary.is_discarded()) << first.out;

  std::vector<nlohmann::json> lines = ReadLines(metrics);
  ASSERT_EQ(lines.size(), 32u);  // 30 steps, 2 epochs
  double last_epoch_loss = 0, wall = before;
  int64_t step = 0;
  for (const nlohmann::json& line : lines) {
    EXPECT_GE(line["wall_time"].get<double>(), wall) << line;
    EXPECT_LE(line["wall_time"].get<double>(), after) << line;
    wall = line["wall_time"];
    if (line.contains("test_accuracy")) {
      EXPECT_EQ(line["step"], step) << line;
      EXPECT_EQ(line["epoch"], step / 15 - 1) << line;
      continue;
    }
    EXPECT_EQ(line["step"], ++step) << line;
    EXPECT_EQ(line["epoch"], (step - 1) / 15) << line;
    EXPECT_GT(line["images_per_sec"].get<double>(), 0) << line;
    if (step > 15) last_epoch_loss += line["loss"].get<double>();
  }
  EXPECT_EQ(step, 30);
  // The summary's figures are the last epoch's: its test accuracy, and its
  // steps' mean loss.
  EXPECT_EQ(lines.back()["test_accuracy"], summary["test_accuracy"]);
  EXPECT_NEAR(last_epoch_loss / 15, summary["train_loss"].get<double>(), 1e-6);

  test::CommandResult resumed = test::RunCommand(run + " --epochs 3 2>&1");
  ASSERT_EQ(resumed.status, 0) << resumed.out;
  lines = ReadLines(metrics);
  ASSERT_EQ(lines.size(), 32u + 16u);
  EXPECT_EQ(lines[32]["step"], 31);
  EXPECT_EQ(lines.back()["epoch"], 2);
  EXPECT_EQ(lines.back()["test_accuracy"], LastLine(resumed.out)["test_accuracy"]);

  test::CommandResult bad = test::RunCommand(std::string(TACT_BINARY) + " train --max-steps 5 --metrics " +
                                             (dir / "no/m.jsonl").string() + " 2>&1");
  EXPECT_EQ(bad.status, 1) << bad.out;
  EXPECT_NE(bad.out.find((dir / "no/m.jsonl").string()), std::string::npos) << bad.out;
  EXPECT_EQ(bad.out.find("test accuracy"), std::string::npos) << bad.out;
  fs::remove_all(dir);
}

// A metrics file whose writes fail (a full disk: /dev/full) is said once,
// naming it, and the run trains on to its end; the lines used to be lost
// without a word.
TEST(TactMetricsTest, AMetricsFileThatFillsUpIsSaidOnceAndTheRunGoesOn) {
  if (!fs::exists(std::string(kDefaultDataDir) + "/t10k-images-idx3-ubyte.gz")) GTEST_SKIP() << "no data";
  test::CommandResult r = test::RunCommand(std::string(TACT_BINARY) +
                                           " train --max-steps 10 --train-limit 2000 --test-limit 100 "
                                           "--metrics /dev/full --json 2>&1");
  EXPECT_EQ(r.status, 0) << r.out;
  const std::string said = "--metrics: cannot append to '/dev/full': No space left on device";
  const size_t at = r.out.find(said);
  EXPECT_NE(at, std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(said, at + 1), std::string::npos) << "said more than once: " << r.out;
  EXPECT_EQ(LastLine(r.out)["steps"], 10) << r.out;
}

}  // namespace
}  // namespace tact::apps

// `tact train` as a user runs it: its JSON line, and exit status 1 with a
// message for bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "apps/train/trainer.h"
#include "tests/apps/run_command.h"

namespace tact::apps {
namespace {

using Result = test::CommandResult;  // stdout and stderr in `out`

Result RunTactTrain(const std::string& args) {
  return test::RunCommand(std::string(TACT_BINARY) + " train " + args + " 2>&1");
}

TEST(TactTrainTest, PrintsOneJsonLineLast) {
  if (!std::filesystem::exists(std::string(kDefaultDataDir) + "/t10k-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "no data set at " << kDefaultDataDir;
  }
  Result r = RunTactTrain("--model mlp --max-steps 20 --train-limit 2000 --test-limit 500 --json");
  ASSERT_EQ(r.status, 0) << r.out;
  ASSERT_FALSE(r.out.empty());
  std::string last = r.out.substr(0, r.out.size() - 1);
  last = last.substr(last.rfind('\n') + 1);
  const nlohmann::json j = nlohmann::json::parse(last, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(j.is_discarded()) << last;
  for (const char* key : {"model", "epochs", "steps", "batch", "test_accuracy", "train_loss",
                          "images_per_sec", "parameters", "variables_fingerprint"}) {
    EXPECT_TRUE(j.contains(key)) << key << " missing from " << last;
  }
  EXPECT_EQ(j["model"], "mlp");
  EXPECT_EQ(j["steps"], 20);
  EXPECT_EQ(j["parameters"], 235146);
  EXPECT_GT(j["images_per_sec"].get<double>(), 0);
}

TEST(TactTrainTest, BadDeviceCountsExitOneNamingThePart) {
  for (const char* bad : {"cpu:x", "tpu:1", "cpu:1,cpu:2"}) {
    Result r = RunTactTrain(std::string("--max-steps 1 --devices ") + bad);
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_NE(r.out.find("--devices"), std::string::npos) << r.out;
  }
}

// On a machine without a GPU (or a build without CUDA) asking for one fails
// at once with a message that says so, before any data is read.
TEST(TactTrainTest, AGpuThatIsNotThereExitsOneSayingSo) {
  Result r = RunTactTrain("--max-steps 1 --devices cpu:1,gpu:8");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("GPU"), std::string::npos) << r.out;
}

TEST(TactTrainTest, AMissingDataDirectoryExitsOneNamingIt) {
  Result r = RunTactTrain("--data /nonexistent/fmnist");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("/nonexistent/fmnist"), std::string::npos) << r.out;
}

TEST(TactTrainTest, AnUnknownModelIsRefused) {
  Result r = RunTactTrain("--model resnet");
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("resnet"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace tact::apps

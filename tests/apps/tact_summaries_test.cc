// `tact train --summary-dir` as a user runs it: the events file read with
// protobuf's parser (scripts/read_events.py), its losses against the
// --metrics file, its histograms against the checkpoint of the same step
// read with h5py, and the variables the same as without summaries, in one
// process and on a cluster that loses a worker.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "apps/train/train_options.h"
#include "tests/apps/read_events.h"
#include "tests/apps/run_command.h"

namespace tact::apps {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json LastJsonLine(const std::string& out) {
  return json::parse(out.substr(out.rfind("\n{") + 1), nullptr, /*allow_exceptions=*/false);
}

class TactSummariesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(std::string(kDefaultDataDir) + "/t10k-images-idx3-ubyte.gz")) {
      GTEST_SKIP() << "no data set at " << kDefaultDataDir;
    }
    if (!test::HaveProtobufForPython()) {
      GTEST_SKIP() << "python3-protobuf is not installed (scripts/setup.sh installs it)";
    }
    dir_ = fs::path(::testing::TempDir()) / ("tact_summaries_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // `tact train <args> --json`: exit status 0 expected; its JSON line.
  json Train(const std::string& args) {
    test::CommandResult r = test::RunCommand(std::string(TACT_BINARY) + " train " + args + " --json 2>&1");
    EXPECT_EQ(r.status, 0) << r.out;
    json j = LastJsonLine(r.out);
    EXPECT_TRUE(j.is_object()) << r.out;
    return j;
  }
  // The events of the one events file in `dir`.
  std::vector<json> Events(const fs::path& dir) {
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path().string());
    EXPECT_EQ(files.size(), 1u);
    return test::ReadEvents(files);
  }
  std::string P(const std::string& name) { return (dir_ / name).string(); }

  fs::path dir_;
};

// {"step" -> {tag -> value}} of the events' summaries (a histogram as its
// "histo" object).
std::map<std::string, json> ByStep(const std::vector<json>& events) {
  std::map<std::string, json> by_step;
  for (const json& e : events) {
    if (!e.contains("summary")) continue;
    for (const json& v : e["summary"]["value"]) {
      by_step[e["step"]][v["tag"].get<std::string>()] = v.contains("histo") ? v["histo"] : v["simple_value"];
    }
  }
  return by_step;
}

TEST_F(TactSummariesTest, LossesHistogramsAndAccuracyAsTheMetricsAndTheCheckpointHaveThem) {
  // 60 steps an epoch: an accuracy at 60 and 120, the rest at 50, 100 and the last.
  const std::string common = "--model mlp --epochs 2 --train-limit 6000 --test-limit 500 --seed 3";
  const json plain = Train(common);
  const json with = Train(common + " --summary-dir " + P("logs") + " --summary-every-steps 50 --metrics " +
                          P("metrics.jsonl") + " --checkpoint-dir " + P("ckpt") +
                          " --checkpoint-every-steps 50");
  // Summaries read the variables; they change none.
  EXPECT_EQ(with["variables_fingerprint"], plain["variables_fingerprint"]);

  const std::map<std::string, json> steps = ByStep(Events(dir_ / "logs"));
  ASSERT_EQ(steps.size(), 4u);
  for (const char* step : {"50", "100", "120"}) {
    ASSERT_TRUE(steps.count(step) && steps.at(step).count("loss")) << step;
  }
  for (const char* step : {"60", "120"}) {
    ASSERT_TRUE(steps.count(step) && steps.at(step).count("test_accuracy")) << step;
  }
  // Each step's loss and each epoch's accuracy are the metrics file's.
  std::ifstream metrics(P("metrics.jsonl"));
  int checked = 0;
  for (std::string line; std::getline(metrics, line);) {
    const json m = json::parse(line);
    const std::string step = std::to_string(m["step"].get<int64_t>());
    const char* key = m.contains("test_accuracy") ? "test_accuracy" : "loss";
    if (!steps.count(step) || !steps.at(step).count(key)) continue;
    EXPECT_FLOAT_EQ(steps.at(step)[key].get<float>(), m[key].get<float>()) << step << " " << key;
    ++checked;
  }
  EXPECT_EQ(checked, 5);
  // Step 100's histograms describe the variables that checkpoint 100 holds.
  const std::string script = P("check.py");
  std::ofstream(script) << "import glob, json, sys, h5py, numpy as np\n"
                        << "f = h5py.File(glob.glob(sys.argv[1] + '/ckpt-100.*.h5')[0], 'r')\n"
                        << "out = {}\n"
                        << "for name in ['mlp/dense/kernel', 'mlp/dense/bias', 'mlp/dense_2/kernel']:\n"
                        << "    v = f[name + '/:value'][()].astype(np.float64)\n"
                        << "    out[name] = [float(v.min()), float(v.max()), float(v.size), float(v.sum())]\n"
                        << "print(json.dumps(out))\n";
  test::CommandResult r = test::RunCommand("/usr/bin/python3 " + script + " " + P("ckpt") + " 2>&1");
  ASSERT_EQ(r.status, 0) << r.out;
  const json want = json::parse(r.out);
  for (const auto& [name, v] : want.items()) {
    const json& histo = steps.at("100")[name];
    EXPECT_EQ(histo["min"].get<double>(), v[0].get<double>()) << name;
    EXPECT_EQ(histo["max"].get<double>(), v[1].get<double>()) << name;
    EXPECT_EQ(histo["num"].get<double>(), v[2].get<double>()) << name;
    EXPECT_NEAR(histo["sum"].get<double>(), v[3].get<double>(), 1e-9 * (1 + std::abs(v[3].get<double>())))
        << name;
    double counted = 0;
    for (const json& c : histo["bucket"]) counted += c.get<double>();
    EXPECT_EQ(counted, v[2].get<double>()) << name;
  }
}

// On a cluster the histograms run beside the variables on the ps; a worker
// killed mid-run is recovered from, and the run still ends with the
// variables of the run without summaries or faults.
TEST_F(TactSummariesTest, AClusterThatLosesAWorkerWritesEverySummaryAndKeepsItsVariables) {
  const std::string common =
      "--model mlp --ps 1 --workers 2 --epochs 2 --max-steps 90 --train-limit 6000 --test-limit 500";
  const json plain = Train(common);
  const json with = Train(common + " --summary-dir " + P("logs") + " --summary-every-steps 30" +
                          " --checkpoint-dir " + P("ckpt") + " --checkpoint-every-steps 20" +
                          " --fault kill:worker:1@step=45");
  EXPECT_EQ(with["recoveries"], 1) << with.dump();
  EXPECT_EQ(with["variables_fingerprint"], plain["variables_fingerprint"]);
  const std::map<std::string, json> steps = ByStep(Events(dir_ / "logs"));
  for (const char* step : {"30", "60", "90"}) {
    ASSERT_TRUE(steps.count(step)) << step;
    EXPECT_EQ(steps.at(step)["mlp/dense/kernel"]["num"].get<double>(), 784.0 * 256) << step;
    EXPECT_GT(steps.at(step)["images_per_sec"].get<double>(), 0) << step;
  }
}

TEST_F(TactSummariesTest, ABadPeriodIsRefusedNamingTheFlag) {
  test::CommandResult r = test::RunCommand(std::string(TACT_BINARY) + " train --model mlp --max-steps 5 " +
                                           "--summary-dir " + P("logs") + " --summary-every-steps 0 2>&1");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("--summary-every-steps must be at least 1, got 0"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace tact::apps

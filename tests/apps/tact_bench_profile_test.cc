// `tact bench profile` as a user runs it: one JSON line whose op types
// account for the step, and the GEMM ops' FLOP rates.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "tests/apps/run_command.h"

namespace tact {
namespace {

// `tact bench profile ARGS`, stdout and stderr.
test::CommandResult Profile(const std::string& args) {
  return test::RunCommand(std::string(TACT_BINARY) + " bench profile " + args + " 2>&1");
}

TEST(TactBenchProfileTest, TheMlpsStepByOpType) {
  auto [rc, out] = Profile("--model mlp --batch 32 --steps 3 --threads 1 --json");
  ASSERT_EQ(rc, 0) << out;
  const nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  EXPECT_EQ(j["model"], "mlp");
  EXPECT_EQ(j["steps"], 3);
  EXPECT_GT(j["step_ms"].get<double>(), 0);
  double share = 0, ms = 0;
  std::set<std::string> ops;
  for (const auto& e : j["ops"]) {
    ops.insert(e["op"].get<std::string>());
    share += e["share"].get<double>();
    ms += e["ms_per_step"].get<double>();
  }
  EXPECT_NEAR(share, 1.0, 1e-9);
  EXPECT_NEAR(ms, j["ops_ms_per_step"].get<double>(), 1e-6);
  for (const char* op : {"MatMul", "ApplyAdam", "ReluGrad", "SparseSoftmaxCrossEntropyWithLogits"}) {
    EXPECT_TRUE(ops.count(op)) << op << " missing from " << out;
  }
  // Forward and backward of three dense layers: MatMul runs 3 + 5 times a
  // step (the first layer's input needs no gradient), with a FLOP rate.
  for (const auto& e : j["ops"]) {
    if (e["op"] != "MatMul") continue;
    EXPECT_DOUBLE_EQ(e["nodes_per_step"].get<double>(), 8.0);
    EXPECT_GT(e["gflops"].get<double>(), 0);
  }
}

TEST(TactBenchProfileTest, AnUnknownModelExitsNonZero) {
  auto [rc, out] = Profile("--model resnet --steps 1");
  EXPECT_NE(rc, 0);
  EXPECT_NE(out.find("resnet"), std::string::npos) << out;
}

}  // namespace
}  // namespace tact

// `tact bench executor` as a user runs it: one JSON line with every figure,
// each spread ordered, and the plain loop beside the chain.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/apps/run_command.h"

namespace tact {
namespace {

test::CommandResult BenchExecutor(const std::string& args) {
  return test::RunCommand(std::string(TACT_BINARY) + " bench executor " + args + " 2>&1");
}

void ExpectOrderedSpread(const nlohmann::json& j, const char* name) {
  SCOPED_TRACE(name);
  ASSERT_TRUE(j.contains(name));
  const double min = j[name]["min"], median = j[name]["median"], max = j[name]["max"];
  EXPECT_GT(min, 0);
  EXPECT_LE(min, median);
  EXPECT_LE(median, max);
}

TEST(TactBenchExecutorTest, EveryFigureWithItsSpreadAndThePlainLoop) {
  auto [rc, out] = BenchExecutor("--nodes 50 --reps 5 --json");
  ASSERT_EQ(rc, 0) << out;
  const nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  EXPECT_EQ(j["nodes"], 50);
  for (const char* f : {"ns_per_node_chain", "ns_per_node_wide", "run_overhead_us",
                        "ns_per_loop_iteration", "plain_ns_per_node"}) {
    EXPECT_GT(j[f].get<double>(), 0) << f;
  }
  for (const char* s : {"chain_runs_ns", "wide_runs_ns", "plain_runs_ns", "chain_over_plain",
                        "wide_over_plain"}) {
    ExpectOrderedSpread(j, s);
  }
  EXPECT_DOUBLE_EQ(j["ns_per_node_chain"].get<double>(), j["chain_runs_ns"]["median"].get<double>());
  EXPECT_DOUBLE_EQ(j["plain_ns_per_node"].get<double>(), j["plain_runs_ns"]["median"].get<double>());
  // 50 Adds, their 50 Consts and a shared one, 7 AddNs of the first
  // level, one of the second, and the Identity.
  EXPECT_EQ(j["wide_graph_nodes"], 110);
}

TEST(TactBenchExecutorTest, ARepCountOfZeroIsRefused) {
  auto [rc, out] = BenchExecutor("--nodes 10 --reps 0");
  EXPECT_NE(rc, 0);
  EXPECT_NE(out.find("--reps"), std::string::npos) << out;
}

}  // namespace
}  // namespace tact

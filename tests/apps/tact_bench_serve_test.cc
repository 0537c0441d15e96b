// `tact bench serve` as a user runs it: one JSON line with a section per
// client count, each figure's spread over the runs, and, for the mlp, the
// same figures of the direct computation it compared its probabilities
// with before timing (a mismatch ends the benchmark with exit 1). The times are not judged
// (benchmarks are not timed tests); their shape is.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/apps/run_command.h"

namespace tact {
namespace {

nlohmann::json Bench(const std::string& flags) {
  test::CommandResult r = test::RunCommand(std::string(TACT_BINARY) + " bench serve " + flags + " 2>&1");
  EXPECT_EQ(r.status, 0) << r.out;
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out;
  return j;
}

TEST(TactBenchServeTest, TheMlpAtOneAndThreeClientsBesideTheDirectComputation) {
  const nlohmann::json j = Bench("--model mlp --batch 4 --clients 1,3 --requests 60 --runs 2");
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["batch"], 4);
  for (const char* section : {"clients_1", "clients_3"}) {
    ASSERT_TRUE(j.contains(section)) << j.dump();
    ASSERT_TRUE(j[section].contains("direct")) << j.dump();
    for (const auto* s : {&j[section], &j[section]["direct"]}) {
      EXPECT_EQ((*s)["requests_per_sec"]["runs"].size(), 2u) << section;
      const double p50 = (*s)["latency_p50_us"]["median"], p99 = (*s)["latency_p99_us"]["median"];
      const double max = (*s)["latency_max_us"]["median"];
      EXPECT_GT(p50, 0) << section;
      EXPECT_LE(p50, p99) << section;
      EXPECT_LE(p99, max) << section;
      EXPECT_DOUBLE_EQ((*s)["images_per_sec"].get<double>(),
                       4 * (*s)["requests_per_sec"]["median"].get<double>());
    }
    EXPECT_GT(j[section]["p50_over_direct"].get<double>(), 0) << section;
    EXPECT_GT(j[section]["p99_over_direct"].get<double>(), 0) << section;
  }
}

TEST(TactBenchServeTest, TheCnnHasNoDirectFigure) {
  const nlohmann::json j = Bench("--model cnn --clients 2 --requests 10 --runs 1");
  ASSERT_FALSE(j.is_discarded());
  EXPECT_FALSE(j["clients_2"].contains("direct")) << j.dump();
  EXPECT_GT(j["clients_2"]["requests_per_sec"]["median"].get<double>(), 0);
}

TEST(TactBenchServeTest, BadFlagsExitOneNamingThem) {
  for (const char* flags : {"--clients 0", "--clients 2,x", "--clients ,", "--batch 0", "--runs 0"}) {
    test::CommandResult r =
        test::RunCommand(std::string(TACT_BINARY) + " bench serve " + flags + " 2>&1");
    EXPECT_EQ(r.status, 1) << flags << ": " << r.out;
    EXPECT_NE(r.out.find("tact bench serve:"), std::string::npos) << flags << ": " << r.out;
  }
}

}  // namespace
}  // namespace tact

// `tact bench place --runtime` as a user runs it: six cases, each way's
// step time, and which ways ran the same plan. The times are not judged
// (benchmarks are not timed tests); the plans are: the greedy placer keeps
// the mlp's step on one device and spreads the cnn's and the wide graph's.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace tact {
namespace {

TEST(TactBenchPlaceRuntimeTest, GreedySpreadsOnlyWhereItPays) {
  const std::string cmd = std::string(TACT_BINARY) + " bench place --runtime --steps 1 --json 2>&1";
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int rc = pclose(p);
  ASSERT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 0) << out;
  const nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  EXPECT_EQ(j["cases_run"], 6);
  std::set<std::pair<std::string, int>> seen;
  for (const auto& c : j["cases"]) {
    const std::string graph = c["graph"];
    const int devices = c["devices"];
    seen.insert({graph, devices});
    for (const char* way : {"greedy", "greedy_measured", "one_device", "round_robin"}) {
      EXPECT_GT(c[std::string(way) + "_ms"].get<double>(), 0) << graph << " " << way;
      EXPECT_TRUE(c["plan"].contains(way)) << out;
    }
    const auto& plan = c["plan"];
    // Round-robin spreads every graph; one device never does.
    EXPECT_NE(plan["round_robin"], plan["one_device"]) << graph << " on " << devices;
    if (graph == "mlp") {
      EXPECT_EQ(plan["greedy"], plan["one_device"]) << "mlp on " << devices << ": " << out;
    } else {
      EXPECT_NE(plan["greedy"], plan["one_device"]) << graph << " on " << devices << ": " << out;
    }
  }
  EXPECT_EQ(seen.size(), 6u) << out;
}

}  // namespace
}  // namespace tact

// `tact bench sendrecv` as a user runs it: one JSON line with the raw
// socket's small round trip pinned to one core and to two, the limits a
// hop between processes meets, or null where one core is all it may use.
#include <gtest/gtest.h>
#include <sched.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/apps/run_command.h"

namespace tact {
namespace {

// `PREFIX tact bench sendrecv ARGS`.
test::CommandResult SendRecv(const std::string& prefix, const std::string& args) {
  return test::RunCommand(prefix + std::string(TACT_BINARY) + " bench sendrecv " + args + " 2>/dev/null");
}

TEST(TactBenchSendRecvTest, TheRawRoundTripOnOneCoreAndOnTwo) {
  cpu_set_t allowed;
  ASSERT_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
  if (CPU_COUNT(&allowed) < 2) GTEST_SKIP() << "one core: the two-core figure is null (next test)";
  auto [rc, out] = SendRecv("", "--bytes 4096 --reps 1 --json");
  ASSERT_EQ(rc, 0) << out;
  const nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  EXPECT_EQ(j["bytes"], 4096);
  for (const char* key : {"raw_tcp_small_rtt_same_core_us", "raw_tcp_small_rtt_across_cores_us",
                          "raw_tcp_small_rtt_us", "remote_small_rtt_us"}) {
    ASSERT_TRUE(j[key].is_number()) << key << " in " << out;
    EXPECT_GT(j[key].get<double>(), 0) << key;
    EXPECT_LT(j[key].get<double>(), 1e6) << key;  // under a second
  }
}

TEST(TactBenchSendRecvTest, OnOneCoreTheTwoCoreFiguresAreNull) {
  auto [rc, out] = SendRecv("taskset -c 0 ", "--bytes 4096 --reps 1 --json");
  ASSERT_EQ(rc, 0) << out;
  const nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  EXPECT_TRUE(j["raw_tcp_small_rtt_same_core_us"].is_null()) << out;
  EXPECT_TRUE(j["raw_tcp_small_rtt_across_cores_us"].is_null()) << out;
  EXPECT_GT(j["raw_tcp_small_rtt_us"].get<double>(), 0);
}

}  // namespace
}  // namespace tact

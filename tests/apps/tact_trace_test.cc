// `tact train --trace` and `tact run --trace` as a user runs them: real
// processes, and the Chrome trace files they write read back.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "apps/train/train_options.h"
#include "graph/graph_def_text.h"
#include "graph/npy.h"
#include "graph/ops/all_ops.h"
#include "tests/apps/run_command.h"

namespace tact::apps {
namespace {

namespace fs = std::filesystem;
using Result = test::CommandResult;

class TactTraceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("tact_trace_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  Result Tact(const std::string& args) {
    return test::RunCommand(std::string(TACT_BINARY) + " " + args + " 2>&1");
  }
  std::string P(const std::string& name) const { return (dir_ / name).string(); }

  static std::string Fingerprint(const Result& r) {
    std::string last = r.out.substr(0, r.out.size() - 1);
    const nlohmann::json j = nlohmann::json::parse(last.substr(last.rfind('\n') + 1), nullptr, false);
    return j.is_discarded() ? "" : j["variables_fingerprint"].get<std::string>();
  }

  // The trace's slices by node name, with each one's task.
  struct Slice {
    std::string task, op;
    double start = 0, end = 0;
  };
  std::map<std::string, Slice> ReadTrace(const std::string& path, int64_t* origin_unix_ns = nullptr) {
    std::ifstream f(path);
    const nlohmann::json j = nlohmann::json::parse(f, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << path;
    if (origin_unix_ns != nullptr && !j.is_discarded())
      *origin_unix_ns = j["otherData"]["first_node_start_unix_ns"];
    std::map<int, std::string> task;
    std::map<std::string, Slice> slices;
    if (j.is_discarded()) return slices;
    for (const auto& e : j["traceEvents"]) {
      if (e["ph"] == "M" && e["name"] == "process_name") task[e["pid"]] = e["args"]["name"];
    }
    for (const auto& e : j["traceEvents"]) {
      if (e["ph"] != "X") continue;
      const double ts = e["ts"], dur = e["dur"];
      EXPECT_GE(ts, 0) << e.dump();
      EXPECT_GE(dur, 0) << e.dump();
      slices[e["name"]] = {task[e["pid"]], e["cat"], ts, ts + dur};
    }
    return slices;
  }

  fs::path dir_;
};

// A cluster's step: every task's nodes on one time line, which the clocks
// of the processes share: each tensor a task sends is received after the
// Send started.
TEST_F(TactTraceTest, AClustersStepShowsEveryTaskAndEachTransferAfterItsSend) {
  if (!fs::exists(std::string(kDefaultDataDir) + "/t10k-images-idx3-ubyte.gz")) GTEST_SKIP() << "no data";
  const std::string run = "train --model mlp --ps 1 --workers 2 --max-steps 20 --test-limit 200 --json";
  auto unix_ns = [] {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  const int64_t before = unix_ns();
  Result traced = Tact(run + " --trace " + P("step.json"));
  const int64_t after = unix_ns();
  ASSERT_EQ(traced.status, 0) << traced.out;
  EXPECT_NE(traced.out.find("step 10 traced to " + P("step.json")), std::string::npos) << traced.out;
  // Tracing a step does not change what it computes.
  Result plain = Tact(run);
  ASSERT_EQ(plain.status, 0) << plain.out;
  EXPECT_EQ(Fingerprint(traced), Fingerprint(plain));
  EXPECT_FALSE(Fingerprint(plain).empty());

  int64_t origin = 0;
  const std::map<std::string, Slice> slices = ReadTrace(P("step.json"), &origin);
  // The nodes' times are the system clock's.
  EXPECT_GT(origin, before);
  EXPECT_LT(origin, after);
  std::set<std::string> tasks;
  std::map<std::string, std::set<std::string>> ops_of_task;
  for (const auto& [name, s] : slices) {
    tasks.insert(s.task);
    ops_of_task[s.task].insert(s.op);
  }
  EXPECT_EQ(tasks, (std::set<std::string>{"/job:ps/replica:0/task:0", "/job:worker/replica:0/task:0",
                                          "/job:worker/replica:0/task:1"}));
  EXPECT_TRUE(ops_of_task["/job:ps/replica:0/task:0"].count("ApplyAdam"));
  EXPECT_TRUE(ops_of_task["/job:worker/replica:0/task:0"].count("MatMul"));
  EXPECT_TRUE(ops_of_task["/job:worker/replica:0/task:1"].count("MatMul"));
  int pairs = 0;
  for (const auto& [name, recv] : slices) {
    const size_t at = name.find("/_recv_");
    if (at == std::string::npos) continue;
    auto send = slices.find(name.substr(0, at) + "/_send_" + name.substr(at + 7));
    if (send == slices.end() || send->second.task == recv.task) continue;
    ++pairs;
    EXPECT_LE(send->second.start, recv.end) << name;
  }
  EXPECT_EQ(pairs, 24);  // 6 variables to each of 2 workers, 6 gradients back from each
}

TEST_F(TactTraceTest, BadTraceRequestsAreRefusedBeforeTraining) {
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {"--max-steps 20 --trace " + P("t.json") + " --trace-step 20",
       "--trace-step 20 is past the run's last step, 19"},
      {"--max-steps 20 --trace-step 3", "--trace-step needs --trace"},
      {"--max-steps 20 --trace " + P("no/such/dir/t.json"), P("no/such/dir/t.json")},
      {"--max-steps 20 --ps 1 --workers 2 --mode async --trace " + P("t.json"),
       "--trace traces one sync step"},
  };
  for (const Case& c : cases) {
    Result r = Tact("train --model mlp " + c.args);
    EXPECT_EQ(r.status, 1) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.message), std::string::npos) << c.args << "\n" << r.out;
    EXPECT_EQ(r.out.find("test accuracy"), std::string::npos) << c.args << "\n" << r.out;
  }
  // A run shorter than the default step traces its last.
  Result r = Tact("train --model mlp --max-steps 4 --test-limit 100 --trace " + P("short.json"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("step 3 traced"), std::string::npos) << r.out;
  EXPECT_FALSE(ReadTrace(P("short.json")).empty());
}

TEST_F(TactTraceTest, ARunOfAGraphFileTracesEachNodeWithItsOp) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  Add(s.WithOpName("y"), Square(s.WithOpName("sq"), x), 1.0f);
  auto def = s.ToGraphDef();
  ASSERT_TRUE(def.ok());
  auto text = GraphDefToText(*def);
  ASSERT_TRUE(text.ok());
  std::ofstream(P("g.txt")) << *text;
  ASSERT_TRUE(WriteNpyFile(P("x.npy"), Tensor::FromVector<float>({1, 2, 3}, {3})).ok());
  Result r = Tact("run --graph " + P("g.txt") + " --feed x:0=" + P("x.npy") + " --fetch y:0 --out " +
                  P("out") + " --trace " + P("run.json"));
  ASSERT_EQ(r.status, 0) << r.out;
  const std::map<std::string, Slice> slices = ReadTrace(P("run.json"));
  ASSERT_TRUE(slices.count("sq") && slices.count("y")) << r.out;
  EXPECT_EQ(slices.at("sq").op, "Square");
  EXPECT_EQ(slices.at("y").op, "Add");
  EXPECT_LE(slices.at("sq").end, slices.at("y").start);  // y waited for sq

  // A trace that cannot be written is named, after the fetches are.
  fs::remove_all(P("out"));
  Result bad = Tact("run --graph " + P("g.txt") + " --feed x:0=" + P("x.npy") + " --fetch y:0 --out " +
                    P("out") + " --trace " + P("no/such/run.json"));
  EXPECT_EQ(bad.status, 1) << bad.out;
  EXPECT_NE(bad.out.find(P("no/such/run.json")), std::string::npos) << bad.out;
  EXPECT_TRUE(fs::exists(P("out/y_0.npy")));
}

}  // namespace
}  // namespace tact::apps

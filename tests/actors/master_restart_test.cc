// The master is supervised too (actors/supervisor.h): a master that dies
// is replaced by one that knows the session's graph and registers the
// partitions again, and the session goes on; past the restart limit, Runs
// fail with a clear Aborted instead.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "actors/session.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {

struct Counter {
  GraphDef def;
  std::string init, add, value;
};

// v = 0; each run of `add` adds x (fed) to v.
Counter BuildCounter() {
  Scope s = Scope::NewRootScope();
  Output v = Variable(s.WithOpName("v"), PartialTensorShape({}), DT_FLOAT);
  Output init = Assign(s.WithOpName("init"), v, Const(s, Tensor::Scalar<float>(0)));
  Output x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  Output add = AssignAdd(s.WithOpName("add"), v, x);
  Output value = Identity(s.WithOpName("value"), v);
  auto def = s.ToGraphDef();
  EXPECT_TRUE(def.ok()) << def.status().ToString();
  return Counter{*def, init.node->name(), add.name(), value.name()};
}

// The first Runs after a crash may still reach the old master (the crash
// is a message too) and fail with Unavailable; a new master answers soon.
StatusOr<std::vector<Tensor>> RunUntilAnswered(Session& s,
                                               const std::vector<std::pair<std::string, Tensor>>& feeds,
                                               const std::vector<std::string>& fetches) {
  StatusOr<std::vector<Tensor>> out = errors::Internal("not run");
  for (int i = 0; i < 200; ++i) {
    out = s.Run(feeds, fetches, {});
    if (out.ok() || out.status().code() != Code::kUnavailable) return out;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return out;
}

TEST(MasterRestartTest, ACrashedMasterIsReplacedAndTheSessionGoesOnWithItsGraphAndVariables) {
  const Counter c = BuildCounter();
  auto s = Session::Create();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  Session& session = **s;
  ASSERT_TRUE(session.Extend(c.def).ok());
  ASSERT_TRUE(session.Run({}, {}, {c.init}).ok());
  for (int k = 1; k <= 3; ++k) {
    ASSERT_TRUE(session.Run({{"x:0", Tensor::Scalar<float>(k)}}, {c.add}, {}).ok());
  }

  for (int crash = 0; crash < 2; ++crash) {
    CrashMaster(session);
    // The new master knows the graph (the old one's Extend) and registers
    // the partitions again; the variable lives in the session's container.
    auto out = RunUntilAnswered(session, {{"x:0", Tensor::Scalar<float>(10)}}, {c.add});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ((*out)[0].scalar<float>(), 16.0f + 10 * crash);
  }
  // Extend goes to the new master, and the graph grows from what it was.
  GraphDef twice;
  NodeDef n;
  n.name = "twice";
  n.op = "Add";
  n.inputs = {c.value, c.value};
  n.attrs["T"] = AttrValue::Type(DT_FLOAT);
  twice.nodes.push_back(n);
  ASSERT_TRUE(session.Extend(twice).ok());
  auto out = session.Run({}, {"twice:0"}, {});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].scalar<float>(), 52.0f);
  EXPECT_TRUE(session.Close().ok());
}

TEST(MasterRestartTest, PastTheRestartLimitRunsFailWithAbortedAndCloseStillWorks) {
  const Counter c = BuildCounter();
  SessionOptions o;
  o.supervision.max_restarts = 1;
  o.supervision.restart_window_secs = 60;
  auto s = Session::Create(o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  Session& session = **s;
  ASSERT_TRUE(session.Extend(c.def).ok());
  ASSERT_TRUE(session.Run({}, {}, {c.init}).ok());
  CrashMaster(session);
  ASSERT_TRUE(RunUntilAnswered(session, {}, {c.value}).ok());  // restarted once
  CrashMaster(session);
  StatusOr<std::vector<Tensor>> out = errors::Internal("not run");
  for (int i = 0; i < 200; ++i) {
    out = session.Run({}, {c.value}, {});
    if (!out.ok() && out.status().code() == Code::kAborted) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kAborted) << out.status().ToString();
  EXPECT_NE(out.status().message().find("the limit is 1"), std::string::npos) << out.status().ToString();
  EXPECT_NE(out.status().message().find("master ended"), std::string::npos) << out.status().ToString();
  EXPECT_FALSE(session.Extend(c.def).ok());
  EXPECT_TRUE(session.Close().ok());
}

}  // namespace
}  // namespace tact

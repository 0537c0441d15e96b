// What crosses between processes in a step is Cap'n Proto: two worker
// processes and this one (the master's) count every runtime message they
// decode, by type of schemas/runtime.capnp (actors/wire_counts.h), and a
// step's RunSteps, StepDones and tensors, and the connection talk before
// it (Describe, Introduce, Hello), all show up there as the types they
// are, with nothing refused.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "actors/wire_counts.h"
#include "cluster_test_util.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {

constexpr const char* kW0 = "/job:worker/replica:0/task:0";
constexpr const char* kW1 = "/job:worker/replica:0/task:1";

// x on worker 0, squared; y = x^2 + 1 on worker 1: one tensor crosses
// from worker 0 to worker 1 in every step, and the master fetches y.
GraphDef SquareThenAddOnTwoTasks() {
  Scope s = Scope::NewRootScope();
  Scope w0 = s.WithDevice("/job:worker/task:0");
  Scope w1 = s.WithDevice("/job:worker/task:1");
  auto sq = Square(w0.WithOpName("sq"), Const(w0, Tensor::FromVector<float>({1, 2, 3})));
  Add(w1.WithOpName("y"), sq, 1.0f);
  return *s.ToGraphDef();
}

// The counts a worker prints as its last line once stopped ("tact worker
// T decoded {...}"); an empty object after a test failure saying why.
nlohmann::json StopAndReadCounts(apps::LocalCluster& cluster, const std::string& task) {
  const std::string line = test_util::StopAndReadLine(cluster, task, "tact worker " + task + " decoded ");
  return line.empty() ? nlohmann::json::object() : nlohmann::json::parse(line);
}

uint64_t Count(const nlohmann::json& counts, const std::string& type) {
  return counts["decoded"].contains(type) ? counts["decoded"][type].get<uint64_t>() : 0;
}

TEST(WireTypesTest, WhatCrossesBetweenProcessesInAStepDecodesAsRuntimeTypes) {
  auto cluster = test_util::StartCluster({{"worker", 2}});
  ASSERT_NE(cluster, nullptr);
  auto session = test_util::Connect(*cluster, SquareThenAddOnTwoTasks());
  ASSERT_NE(session, nullptr);
  // The first Run registers the partitions: each worker's device actor
  // answers with a PartitionRegistered (no handle on an actor crosses).
  const WireDecodeCounts unregistered = DecodeCounts();
  ASSERT_TRUE(session->Run({}, {"y:0"}, {}).ok());
  const WireDecodeCounts before = DecodeCounts();
  auto registered = [&](const WireDecodeCounts& c) {
    return c.decoded.count("PartitionRegistered") ? c.decoded.at("PartitionRegistered") : 0;
  };
  EXPECT_EQ(registered(before) - registered(unregistered), 2u);
  // The steps after it are counted here from their start.
  constexpr uint64_t kSteps = 5;
  for (uint64_t i = 0; i < kSteps; ++i) {
    auto out = session->Run({}, {"y:0"}, {});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ((*out)[0].data<float>()[2], 10.0f);
  }
  const WireDecodeCounts after = DecodeCounts();
  session.reset();

  // This process (the master): each step's two StepDones, each on a link
  // frame; nothing it could not decode.
  auto delta = [&](const std::string& type) {
    auto at = [&](const WireDecodeCounts& c) { return c.decoded.count(type) ? c.decoded.at(type) : 0; };
    return at(after) - at(before);
  };
  EXPECT_EQ(delta("StepDone"), 2 * kSteps);
  EXPECT_EQ(delta("LinkFrame"), 2 * kSteps);
  EXPECT_EQ(delta("RunStep"), 0u);
  EXPECT_EQ(after.refused, before.refused);

  // The workers, over their whole lives: one registration each, every
  // step's RunStep, and on worker 1 every step's tensor from worker 0, each
  // step message inside a link frame; nothing refused.
  const nlohmann::json w0 = StopAndReadCounts(*cluster, kW0);
  const nlohmann::json w1 = StopAndReadCounts(*cluster, kW1);
  for (const nlohmann::json* w : {&w0, &w1}) {
    SCOPED_TRACE(w->dump());
    ASSERT_TRUE(w->contains("decoded"));
    EXPECT_EQ((*w)["refused"].get<uint64_t>(), 0u);
    EXPECT_EQ(Count(*w, "RegisterPartition"), 1u);
    EXPECT_EQ(Count(*w, "RunStep"), kSteps + 1);
    EXPECT_EQ(Count(*w, "StepDone"), 0u);  // a worker sends them, never decodes one
    for (const auto& [type, n] : (*w)["decoded"].items()) {
      EXPECT_TRUE(type == "Describe" || type == "Introduce" || type == "Hello" || type == "TaskInfo" ||
                  type == "RegisterPartition" || type == "RunStep" || type == "LinkFrame" ||
                  type == "HealthPing" || type == "AbortStep")
          << type << " x" << n;
    }
    // The master's connection talk: it described and introduced each task.
    EXPECT_EQ(Count(*w, "Describe"), 1u);
    EXPECT_EQ(Count(*w, "Introduce"), 1u);
  }
  EXPECT_EQ(Count(w0, "LinkFrame"), kSteps + 1) << w0.dump();        // its RunSteps
  EXPECT_EQ(Count(w1, "LinkFrame"), 2 * (kSteps + 1)) << w1.dump();  // its RunSteps and worker 0's tensors
  // Worker 0 connected to worker 1 (the higher name) and said hello; worker
  // 1 answered with its TaskInfo.
  EXPECT_EQ(Count(w1, "Hello"), 1u);
  EXPECT_EQ(Count(w0, "TaskInfo"), 1u);
}

// A convolution in NCHW passes the master's checks but not the worker's
// CPU kernel, which takes NHWC only: the worker refuses the registration,
// and the reason comes back as a Failure, Cap'n Proto like every other
// message.
TEST(WireTypesTest, ARefusedRegistrationComesBackAsAFailure) {
  auto cluster = test_util::StartCluster({{"worker", 1}});
  ASSERT_NE(cluster, nullptr);
  Scope root = Scope::NewRootScope();
  Scope w0 = root.WithDevice("/job:worker/task:0");
  auto x = Placeholder(w0.WithOpName("x"), DT_FLOAT);
  Conv2D(w0.WithOpName("conv"), x, Const(w0, Tensor(DT_FLOAT, {1, 1, 1, 1})), {1, 1, 1, 1}, "VALID");
  GraphDef def = *root.ToGraphDef();
  for (NodeDef& n : def.nodes) {
    if (n.name == "conv") n.attrs["data_format"] = AttrValue::String("NCHW");
  }
  auto session = test_util::Connect(*cluster, def);
  ASSERT_NE(session, nullptr);
  const WireDecodeCounts before = DecodeCounts();
  auto out = session->Run({{"x", Tensor(DT_FLOAT, {1, 1, 2, 2})}}, {"conv:0"}, {});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("data_format 'NCHW'"), std::string::npos) << out.status().ToString();
  const WireDecodeCounts after = DecodeCounts();
  auto failures = [](const WireDecodeCounts& c) {
    return c.decoded.count("Failure") ? c.decoded.at("Failure") : 0;
  };
  EXPECT_GE(failures(after) - failures(before), 1u) << out.status().ToString();
  EXPECT_EQ(after.refused, before.refused);
  // The session is still usable: a good graph runs.
  Scope s = Scope::NewRootScope().NewSubScope("good").WithDevice("/job:worker/task:0");
  Square(s.WithOpName("sq"), Const(s, Tensor::FromVector<float>({3})));
  ASSERT_TRUE(session->Extend(*s.ToGraphDef()).ok());
  auto good = session->Run({}, {"good/sq:0"}, {});
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  EXPECT_EQ((*good)[0].data<float>()[0], 9.0f);
}

}  // namespace
}  // namespace tact

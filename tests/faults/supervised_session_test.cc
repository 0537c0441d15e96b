// Recovery as a library user gets it (actors/supervised_session.h): a graph
// built with the builder API, trained with the default optimizer (Adam) on
// real `tact worker` processes, with a task killed mid-run. The session
// restores the newest checkpoint by itself and says so; the run ends with
// the variables of the run without the fault.
#include <gtest/gtest.h>
#include <unistd.h>

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <thread>

#include "actors/supervised_session.h"
#include "apps/cluster/local_cluster.h"
#include "graph/gradients/gradients.h"
#include "graph/nn/initializers.h"
#include "graph/nn/optimizers.h"
#include "graph/nn/variables.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {

constexpr int kSteps = 30;
constexpr int kEvery = 5;

// y = x w + b, fitted by Adam: w and b (and their slots) on the ps, the
// rest on worker 0 (or wherever the placer likes without a cluster).
struct Regression {
  GraphDef def;
  std::string x, y, loss, train, init, w;
};

Regression BuildRegression(bool on_cluster) {
  Scope root = Scope::NewRootScope();
  Scope ps = on_cluster ? root.WithDevice("/job:ps/task:0") : root;
  Scope worker = on_cluster ? root.WithDevice("/job:worker/task:0") : root;
  Output w = VariableWithInit(ps, "w", {4, 1}, GlorotUniformInit(3));
  Output b = VariableWithInit(ps, "b", {1}, GlorotUniformInit(4));
  Output step = GlobalStep(ps);
  Output x = Placeholder(worker.WithOpName("x"), DT_FLOAT);
  Output y = Placeholder(worker.WithOpName("y"), DT_FLOAT);
  Output err = Sub(worker, Add(worker, MatMul(worker, x, w), b), y);
  Output axes = Const(worker, Tensor::FromVector<int32_t>({0, 1}));
  Output loss = Mean(worker.WithOpName("loss"), Square(worker, err), axes);
  std::vector<Output> grads;
  EXPECT_TRUE(AddSymbolicGradients(worker, {loss}, {w, b}, {}, &grads).ok());
  auto train = ApplyGradients(ps, Optimizer::Adam(0.1), {{grads[0], w}, {grads[1], b}}, step, false);
  EXPECT_TRUE(train.ok()) << train.status().ToString();
  Node* init = InitAllVariables(root.WithOpName("init"));
  Regression r;
  auto def = root.ToGraphDef();
  EXPECT_TRUE(def.ok()) << def.status().ToString();
  r.def = std::move(*def);
  r.x = x.name();
  r.y = y.name();
  r.loss = loss.name();
  r.train = train->node->name();
  r.init = init->name();
  r.w = w.name();
  return r;
}

// Step k's batch, the same in every run: 8 rows of y = x (1 -2 3 0.5) + 1.
std::vector<std::pair<std::string, Tensor>> Feeds(const Regression& g, int64_t k) {
  std::vector<float> xs(32), ys(8);
  const float w[4] = {1, -2, 3, 0.5f};
  for (int i = 0; i < 8; ++i) {
    ys[i] = 1;
    for (int j = 0; j < 4; ++j) {
      xs[i * 4 + j] = static_cast<float>(std::sin(static_cast<double>(k * 32 + i * 4 + j)));
      ys[i] += xs[i * 4 + j] * w[j];
    }
  }
  return {{g.x, Tensor::FromVector<float>(xs, TensorShape({8, 4}))},
          {g.y, Tensor::FromVector<float>(ys, TensorShape({8, 1}))}};
}

class SupervisedSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char t[] = "/tmp/tact_supervised_XXXXXX";
    dir_ = mkdtemp(t);
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }

  // A session on a fresh 1 ps + 1 worker cluster, checkpointing into `name`.
  std::unique_ptr<SupervisedSession> Start(const std::string& name, const Regression& g,
                                           std::function<void(const std::string&)> on_task_back = nullptr) {
    apps::LocalClusterOptions c;
    c.binary = TACT_BINARY;
    c.jobs = {{"ps", 1}, {"worker", 1}};
    auto cluster = apps::LocalCluster::Start(c);
    EXPECT_TRUE(cluster.ok()) << cluster.status().ToString();
    if (!cluster.ok()) return nullptr;
    cluster_ = std::move(*cluster);
    SessionOptions so;
    so.cluster = cluster_->spec();
    so.cluster_secret = cluster_->secret();
    so.supervision.restart_task = cluster_->Restarter();
    so.supervision.task_wait_ms = 30000;
    so.supervision.max_restarts = 5;
    so.supervision.checkpoint = {dir_ + "/" + name, kEvery, 0, 3};
    so.supervision.on_task_back = std::move(on_task_back);
    auto s = SupervisedSession::Create(so, g.def, g.init);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(*s) : nullptr;
  }

  // Trains to kSteps, calling `before(step)` before each step; returns
  // the recoveries it met and w's final value.
  std::vector<RecoveryEvent> Train(SupervisedSession& s, const Regression& g,
                                   const std::function<void(int64_t)>& before, Tensor* w) {
    std::vector<RecoveryEvent> events;
    while (s.step() < kSteps) {
      before(s.step());
      auto r = s.RunStep(Feeds(g, s.step()), {g.loss}, {g.train});
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      if (!r.ok()) break;
      if (r->recovery) {
        events.push_back(*r->recovery);
        continue;
      }
      EXPECT_EQ(r->fetched.size(), 1u);
      if (r->fetched.empty()) continue;
      last_loss_ = r->fetched[0].scalar<float>();
      losses_.push_back(last_loss_);
      if (s.step() == 1) first_loss_ = last_loss_;
    }
    auto out = s.session().Run({}, {g.w}, {});
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    if (out.ok()) *w = (*out)[0];
    return events;
  }

  // w after a run without faults on a cluster of its own.
  Tensor TrainClean(const Regression& g) {
    Tensor w;
    auto s = Start("clean", g);
    EXPECT_NE(s, nullptr);
    if (s != nullptr) {
      EXPECT_TRUE(Train(*s, g, [](int64_t) {}, &w).empty());
    }
    return w;
  }

  std::string dir_;
  std::unique_ptr<apps::LocalCluster> cluster_;
  float first_loss_ = 0, last_loss_ = 0;
  std::vector<float> losses_;  // of the steps that completed, in order
};

void ExpectSameValues(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.NumElements(), b.NumElements());
  for (int64_t i = 0; i < a.NumElements(); ++i) EXPECT_EQ(a.data<float>()[i], b.data<float>()[i]) << i;
}

TEST_F(SupervisedSessionTest, AKilledTaskIsRestoredFromTheNewestCheckpointAndTheRunEndsAsWithout) {
  const Regression g = BuildRegression(true);
  Tensor clean_w, faulted_w;
  {
    auto s = Start("clean", g);
    ASSERT_NE(s, nullptr);
    EXPECT_TRUE(Train(*s, g, [](int64_t) {}, &clean_w).empty());
    EXPECT_EQ(s->stats().checkpoints_saved, 1 + kSteps / kEvery);  // step 0 too
  }
  // The regression has learnt something.
  EXPECT_LT(last_loss_, first_loss_ / 4) << first_loss_;
  for (const char* task : {"/job:worker/replica:0/task:0", "/job:ps/replica:0/task:0"}) {
    SCOPED_TRACE(task);
    auto s = Start(std::string("killed_") + (task[5] == 'w' ? "worker" : "ps"), g);
    ASSERT_NE(s, nullptr);
    bool killed = false;
    auto events = Train(*s, g, [&](int64_t step) {
      if (step == 17 && !killed) {
        killed = true;
        ASSERT_TRUE(cluster_->Signal(task, SIGKILL).ok());
      }
    }, &faulted_w);
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].failed_step, 17);
    EXPECT_EQ(events[0].resumed_from, 15);
    EXPECT_EQ(events[0].steps_lost, 2);
    EXPECT_GT(events[0].recovery_ms, 0);
    EXPECT_FALSE(events[0].cause.ok());
    EXPECT_EQ(s->stats().recoveries, 1);
    EXPECT_EQ(s->stats().steps_lost, 2);
    EXPECT_GT(s->stats().recovery_ms_max, 0);
    ExpectSameValues(clean_w, faulted_w);
  }
}

// Cuts every shard file in `dir` to half its size: no checkpoint there
// reads back good.
void DamageEveryShard(const std::string& dir) {
  int damaged = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".h5") continue;
    std::filesystem::resize_file(entry.path(), std::filesystem::file_size(entry.path()) / 2);
    ++damaged;
  }
  ASSERT_GT(damaged, 0) << dir;
}

// Before the first save after step 0, checkpoint 0 is damaged and the
// worker killed. Running the initialisers again would draw other values
// (the ps's random ops have moved on); the session writes again the values
// it started from, and the run ends as without the faults.
TEST_F(SupervisedSessionTest, WithEveryCheckpointDamagedTheRunGoesBackToItsStart) {
  const Regression g = BuildRegression(true);
  const Tensor clean_w = TrainClean(g);
  Tensor faulted_w;
  auto s = Start("damaged", g);
  ASSERT_NE(s, nullptr);
  bool done = false;
  auto events = Train(*s, g, [&](int64_t step) {
    if (step == 3 && !done) {
      done = true;
      DamageEveryShard(dir_ + "/damaged");  // checkpoint 0, the only one
      ASSERT_TRUE(cluster_->Signal("/job:worker/replica:0/task:0", SIGKILL).ok());
    }
  }, &faulted_w);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].failed_step, 3);
  EXPECT_EQ(events[0].resumed_from, 0);
  EXPECT_EQ(events[0].steps_lost, 3);
  ExpectSameValues(clean_w, faulted_w);
}

// A new session on a directory whose every checkpoint is damaged starts
// afresh, as on an empty one, and saves its checkpoint 0 again.
TEST_F(SupervisedSessionTest, ADirectoryOfOnlyDamagedCheckpointsStartsAfresh) {
  const Regression g = BuildRegression(true);
  const Tensor clean_w = TrainClean(g);
  DamageEveryShard(dir_ + "/clean");
  auto s = Start("clean", g);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->step(), 0);
  EXPECT_EQ(s->stats().resumed_from, -1);
  Tensor w;
  EXPECT_TRUE(Train(*s, g, [](int64_t) {}, &w).empty());
  ExpectSameValues(clean_w, w);  // a fresh cluster draws the same initial values
}

TEST_F(SupervisedSessionTest, AKillWhileACheckpointIsWrittenFallsBackToTheOneBefore) {
  const Regression g = BuildRegression(true);
  const Tensor clean_w = TrainClean(g);
  Tensor faulted_w;
  auto s = Start("killed", g);
  ASSERT_NE(s, nullptr);
  bool killed = false;
  s->set_before_save([&](int64_t step) {
    if (step != 20 || killed) return;
    killed = true;
    ASSERT_TRUE(cluster_->Signal("/job:ps/replica:0/task:0", SIGKILL).ok());
  });
  auto events = Train(*s, g, [](int64_t) {}, &faulted_w);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].failed_step, 20);
  EXPECT_EQ(events[0].resumed_from, 15);
  ExpectSameValues(clean_w, faulted_w);
}

// The ps dies between steps and is back, a new process without variables,
// before the next step runs: that step finds them uninitialised, and the
// session restores them as after a lost task.
TEST_F(SupervisedSessionTest, ATaskBackWithoutItsVariablesIsRestoredLikeALostOne) {
  const Regression g = BuildRegression(true);
  const Tensor clean_w = TrainClean(g);
  Tensor faulted_w;
  std::atomic<int> back{0};
  auto s = Start("restarted", g, [&back](const std::string&) { ++back; });
  ASSERT_NE(s, nullptr);
  bool killed = false;
  auto events = Train(*s, g, [&](int64_t step) {
    if (step != 12 || killed) return;
    killed = true;
    ASSERT_TRUE(cluster_->Signal("/job:ps/replica:0/task:0", SIGKILL).ok());
    for (int i = 0; i < 400 && back == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_EQ(back, 1);
  }, &faulted_w);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].failed_step, 12);
  EXPECT_EQ(events[0].resumed_from, 10);
  EXPECT_EQ(events[0].cause.code(), Code::kFailedPrecondition) << events[0].cause.ToString();
  ExpectSameValues(clean_w, faulted_w);
}

// The session's master dies (the fault hook): the supervisor starts another,
// which registers the partitions again on the same workers; the Run it
// dropped fails, and the session recovers from it like from a lost task.
TEST_F(SupervisedSessionTest, ACrashedMasterIsRestartedAndTheRunEndsAsWithout) {
  const Regression g = BuildRegression(true);
  const Tensor clean_w = TrainClean(g);
  Tensor faulted_w;
  auto s = Start("crashed", g);
  ASSERT_NE(s, nullptr);
  std::set<int64_t> crashed;
  auto events = Train(*s, g, [&](int64_t step) {
    if ((step == 12 || step == 21) && crashed.insert(step).second) CrashMaster(s->session());
  }, &faulted_w);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].failed_step, 12);
  EXPECT_EQ(events[0].resumed_from, 10);
  EXPECT_EQ(events[1].failed_step, 21);
  EXPECT_EQ(events[1].resumed_from, 20);
  EXPECT_EQ(events[1].cause.code(), Code::kUnavailable) << events[1].cause.ToString();
  ExpectSameValues(clean_w, faulted_w);
}

TEST_F(SupervisedSessionTest, ANewSessionResumesFromTheDirectorysNewestCheckpoint) {
  const Regression g = BuildRegression(false);
  SessionOptions so;
  so.supervision.checkpoint = {dir_ + "/run", kEvery, 0, 3};
  Tensor first_w;
  {
    auto s = SupervisedSession::Create(so, g.def, g.init);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ((*s)->stats().resumed_from, -1);
    for (int k = 0; k < 12; ++k) ASSERT_TRUE((*s)->RunStep(Feeds(g, k), {}, {g.train}).ok());
    auto steps = ListCheckpoints(dir_ + "/run");
    ASSERT_TRUE(steps.ok());
    EXPECT_EQ(*steps, (std::vector<int64_t>{0, 5, 10}));  // keep 3
    auto out = (*s)->session().Run({}, {g.w}, {});
    ASSERT_TRUE(out.ok());
    first_w = (*out)[0];
  }
  auto s = SupervisedSession::Create(so, g.def, g.init);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ((*s)->step(), 10);
  EXPECT_EQ((*s)->stats().resumed_from, 10);
  // Steps 10 and 11 again give the first session's values.
  for (int k = 10; k < 12; ++k) ASSERT_TRUE((*s)->RunStep(Feeds(g, (*s)->step()), {}, {g.train}).ok());
  auto out = (*s)->session().Run({}, {g.w}, {});
  ASSERT_TRUE(out.ok());
  ExpectSameValues(first_w, (*out)[0]);
}

TEST_F(SupervisedSessionTest, AFailureNoRestoreCanFollowIsTheCallersAndTheSessionGoesOn) {
  const Regression g = BuildRegression(false);
  SessionOptions so;
  so.supervision.checkpoint = {dir_ + "/run", kEvery, 0, 3};
  auto s = SupervisedSession::Create(so, g.def, g.init);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto bad = (*s)->RunStep({{g.x, Tensor::Scalar<float>(1)}}, {g.loss}, {g.train});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ((*s)->step(), 0);
  EXPECT_EQ((*s)->stats().recoveries, 0);
  auto good = (*s)->RunStep(Feeds(g, 0), {g.loss}, {g.train});
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  EXPECT_EQ((*s)->step(), 1);
  ASSERT_EQ(good->fetched.size(), 1u);
  EXPECT_TRUE(std::isfinite(good->fetched[0].scalar<float>()));
}

TEST_F(SupervisedSessionTest, BadOptionsAndAGraphWithoutVariablesAreNamed) {
  SessionOptions so;
  so.supervision.checkpoint = {dir_ + "/run", 5, 0, 0};
  Scope root = Scope::NewRootScope();
  Const(root.WithOpName("c"), Tensor::Scalar<float>(1));
  auto def = root.ToGraphDef();
  ASSERT_TRUE(def.ok());
  auto s = SupervisedSession::Create(so, *def, "c");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("keep"), std::string::npos) << s.status().ToString();
  so.supervision.checkpoint.keep = 2;
  s = SupervisedSession::Create(so, *def, "c");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("no variables"), std::string::npos) << s.status().ToString();
}

// What a RunSteps loop did, in the order it happened: "f<k>" when step k's
// feeds were asked for, "a<k>" when step k was reported.
struct LoopLog {
  std::vector<std::string> events;  // "f3": step 3's feeds asked for; "a3": step 3 reported
  std::vector<float> losses;  // of the steps that completed, in order
  std::vector<RecoveryEvent> recoveries;

  // Built by appending: GCC 12's -Wrestrict misreads "f" + std::to_string(k).
  static std::string Event(char kind, int64_t step) {
    std::string event(1, kind);
    return event += std::to_string(step);
  }
  void Log(char kind, int64_t step) { events.push_back(Event(kind, step)); }
  size_t At(char kind, int64_t step) const {
    return static_cast<size_t>(std::find(events.begin(), events.end(), Event(kind, step)) - events.begin());
  }
  size_t Count(char kind, int64_t step) const {
    return static_cast<size_t>(std::count(events.begin(), events.end(), Event(kind, step)));
  }
};

// A loop to `until` that logs into `log` and then asks `go_on`.
StepLoop LoggedLoop(const Regression& g, int64_t until, LoopLog* log,
                    std::function<bool(int64_t)> go_on = [](int64_t) { return true; }) {
  StepLoop loop;
  loop.until = until;
  loop.feeds = [&g, log](int64_t k) -> StatusOr<StepLoop::Feeds> {
    log->Log('f', k);
    return Feeds(g, k);
  };
  loop.fetches = {g.loss};
  loop.targets = {g.train};
  loop.after_step = [log, go_on](int64_t k, const SupervisedStepResult& r) {
    log->Log('a', k);
    if (r.recovery) {
      log->recoveries.push_back(*r.recovery);
    } else {
      EXPECT_EQ(r.fetched.size(), 1u) << k;
      if (!r.fetched.empty()) log->losses.push_back(r.fetched[0].scalar<float>());
    }
    return go_on(k);
  };
  return loop;
}

Tensor ValueOf(SupervisedSession& s, const std::string& tensor) {
  auto out = s.session().Run({}, {tensor}, {});
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? (*out)[0] : Tensor();
}

TEST_F(SupervisedSessionTest, RunStepsSendsEachStepAheadButNotAcrossACheckpointAndEndsAsRunStep) {
  const Regression g = BuildRegression(true);
  const Tensor clean_w = TrainClean(g);
  auto s = Start("ahead", g);
  ASSERT_NE(s, nullptr);
  LoopLog log;
  ASSERT_TRUE(s->RunSteps(LoggedLoop(g, kSteps, &log)).ok());
  EXPECT_EQ(s->step(), kSteps);
  ExpectSameValues(clean_w, ValueOf(*s, g.w));
  EXPECT_EQ(log.losses, losses_);  // bit for bit, step by step
  EXPECT_EQ(s->stats().checkpoints_saved, 1 + kSteps / kEvery);
  EXPECT_EQ(*ListCheckpoints(dir_ + "/ahead"), *ListCheckpoints(dir_ + "/clean"));
  for (int k = 0; k < kSteps; ++k) {
    EXPECT_EQ(log.Count('f', k), 1u) << k;
    if (k + 1 == kSteps) continue;
    // Step k+1 is sent while step k runs, unless a checkpoint is saved
    // after step k.
    const size_t next = log.At('f', k + 1), reported = log.At('a', k);
    if ((k + 1) % kEvery == 0) {
      EXPECT_GT(next, reported) << k;
    } else {
      EXPECT_LT(next, reported) << k;
    }
  }
}

// The ps is killed as step 16 is reported: step 17 was sent ahead, and
// either it fails or, should it have ended first, step 18 does.
TEST_F(SupervisedSessionTest, RunStepsComesThroughAKillWhileAStepIsSentAhead) {
  const Regression g = BuildRegression(true);
  const Tensor clean_w = TrainClean(g);
  auto s = Start("killed_ahead", g);
  ASSERT_NE(s, nullptr);
  LoopLog log;
  bool killed = false;
  Status done = s->RunSteps(LoggedLoop(g, kSteps, &log, [&](int64_t k) {
    if (k == 16 && !killed) {
      killed = true;
      EXPECT_TRUE(cluster_->Signal("/job:ps/replica:0/task:0", SIGKILL).ok());
    }
    return true;
  }));
  ASSERT_TRUE(done.ok()) << done.ToString();
  ASSERT_EQ(log.recoveries.size(), 1u);
  const RecoveryEvent& e = log.recoveries[0];
  EXPECT_TRUE(e.failed_step == 17 || e.failed_step == 18) << e.failed_step;
  EXPECT_EQ(e.resumed_from, 15);
  EXPECT_EQ(log.Count('f', 15), 2u);  // asked again after the restore
  EXPECT_EQ(s->stats().recoveries, 1);
  ExpectSameValues(clean_w, ValueOf(*s, g.w));
}

TEST_F(SupervisedSessionTest, RunStepsStopsWhenAskedAndEndsAtAFailingFeed) {
  const Regression g = BuildRegression(false);
  SessionOptions so;
  so.supervision.checkpoint = {dir_ + "/one_at_a_time", kEvery, 0, 3};
  auto one = SupervisedSession::Create(so, g.def, g.init);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  for (int k = 0; k < 20; ++k) ASSERT_TRUE((*one)->RunStep(Feeds(g, k), {}, {g.train}).ok());
  so.supervision.checkpoint.dir = dir_ + "/loops";
  auto s = SupervisedSession::Create(so, g.def, g.init);
  ASSERT_TRUE(s.ok()) << s.status().ToString();

  // Stopped after step 7, step 8 (sent ahead) still completes and is reported.
  LoopLog log;
  ASSERT_TRUE((*s)->RunSteps(LoggedLoop(g, 20, &log, [](int64_t k) { return k != 7; })).ok());
  EXPECT_EQ((*s)->step(), 9);
  EXPECT_EQ(log.events.back(), "a8");
  EXPECT_EQ(log.losses.size(), 9u);

  // A feed that fails ends the loop once the step before is reported.
  StepLoop failing = LoggedLoop(g, 20, &log);
  failing.feeds = [&g](int64_t k) -> StatusOr<StepLoop::Feeds> {
    if (k == 12) return errors::NotFound("no batch ", k);
    return Feeds(g, k);
  };
  Status bad = (*s)->RunSteps(failing);
  EXPECT_EQ(bad.code(), Code::kNotFound) << bad.ToString();
  EXPECT_EQ((*s)->step(), 12);
  EXPECT_EQ(log.events.back(), "a11");
  StepLoop unset;
  unset.until = 20;
  bad = (*s)->RunSteps(unset);
  EXPECT_EQ(bad.code(), Code::kInvalidArgument);
  EXPECT_NE(bad.message().find("feeds"), std::string::npos) << bad.ToString();

  // The rest one step at a time: each step's feeds only after the step before.
  log.events.clear();
  StepLoop rest = LoggedLoop(g, 20, &log);
  rest.send_ahead = false;
  ASSERT_TRUE((*s)->RunSteps(rest).ok());
  EXPECT_EQ((*s)->step(), 20);
  for (int k = 12; k + 1 < 20; ++k)
    EXPECT_GT(log.At('f', k + 1), log.At('a', k));
  ExpectSameValues(ValueOf(**one, g.w), ValueOf(**s, g.w));
}

}  // namespace
}  // namespace tact

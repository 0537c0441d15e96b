// The device and partition actors through their messages, as a master (in
// this process or another) drives them: RegisterPartition, RunStep,
// StepDone, AbortStep and HealthPing, with the errors each can answer.
#include <gtest/gtest.h>

#include <chrono>
#include <map>

#include "actors/actor_scheduler.h"
#include "actors/messages.h"
#include "actors/rendezvous_mgr.h"
#include "tests/actors/executor_test_util.h"
#include "devices/device_factory.h"
#include "graph/ops/all_ops.h"
#include "graph/subgraph.h"

namespace tact {
namespace {

using namespace std::chrono_literals;

class RuntimeActorsTest : public ::testing::Test {
 protected:
  RuntimeActorsTest() {
    UseActorScheduler(cfg_);
    AddRuntimeMessageTypes(cfg_);
    system_ = std::make_unique<caf::actor_system>(cfg_);
    auto devices = CreateDevices({{"CPU", 2}}, "/job:localhost/replica:0/task:0", 1);
    EXPECT_TRUE(devices.ok());
    devices_ = std::move(devices).value();
    device_actor_ = SpawnDeviceActor(*system_, devices_[0].get(), 7, rendezvous_);
    second_device_actor_ = SpawnDeviceActor(*system_, devices_[1].get(), 7, rendezvous_);
  }
  ~RuntimeActorsTest() override {
    caf::anon_send_exit(device_actor_, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(second_device_actor_, caf::exit_reason::user_shutdown);
    system_.reset();
  }

  const std::string& device_name() const { return devices_[0]->name(); }

  // "y = x * x + 1" pruned for feed x:0 and fetch y:0, as the master would
  // register it.
  WireRegisterPartition SquarePlusOne(const std::string& handle) {
    Scope s = Scope::NewRootScope();
    auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
    Add(s.WithOpName("y"), Square(s, x), 1.0f);
    auto full = Graph::FromGraphDef(*s.ToGraphDef());
    SubgraphSpec spec;
    spec.feeds = {"x:0"};
    spec.fetches = {"y:0"};
    spec.device = device_name();
    auto sub = BuildSubgraph(**full, spec);
    EXPECT_TRUE(sub.ok()) << sub.status().ToString();
    WireRegisterPartition reg;
    reg.handle = handle;
    reg.device = device_name();
    reg.graph = (*sub)->ToGraphDef();
    reg.incarnation = 1;
    reg.feeds = {"x:0"};
    reg.fetches = {"y:0"};
    return reg;
  }

  StatusOr<caf::actor> Register(WireRegisterPartition reg, int device = 0) {
    caf::scoped_actor self{*system_};
    StatusOr<caf::actor> result = errors::Internal("no answer");
    self->request(device == 0 ? device_actor_ : second_device_actor_, 10s, std::move(reg))
        .receive(
            [&](WirePartitionRegistered& r) {
              EXPECT_EQ(r.device, devices_[device]->name());
              // In this process the answer holds the partition actor itself.
              if (auto* p = std::any_cast<caf::actor>(&r.local_partition)) {
                result = *p;
              } else {
                result = errors::Internal("PartitionRegistered for '", r.handle, "' holds no actor");
              }
            },
            [&](caf::error& e) { result = FromCafError(e); });
    return result;
  }

  // Sends `run` (and then `abort`, if given) as one sender, and waits for
  // the StepDone.
  WireStepDone Step(const caf::actor& partition, WireRunStep run,
                    const WireAbortStep* abort = nullptr) {
    caf::scoped_actor self{*system_};
    self->send(partition, std::move(run));
    if (abort != nullptr) self->send(partition, *abort);
    WireStepDone done;
    done.status = errors::Internal("no StepDone");
    self->receive([&](WireStepDone& d) { done = std::move(d); },
                  caf::after(10s) >> [] {});
    return done;
  }

  caf::actor_system_config cfg_;
  std::unique_ptr<caf::actor_system> system_;
  std::vector<std::unique_ptr<Device>> devices_;
  std::shared_ptr<RendezvousMgr> rendezvous_ = std::make_shared<RendezvousMgr>();
  caf::actor device_actor_;
  caf::actor second_device_actor_;
};

TEST_F(RuntimeActorsTest, RegisteredPartitionRunsStepsAndReturnsFetches) {
  auto p = Register(SquarePlusOne("p1"));
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  int64_t step_id = 11;
  for (float x : {3.0f, -0.5f}) {
    WireRunStep run{step_id, "p1", {{"x:0", Tensor::FromVector<float>({x, 2 * x})}}, true, {}};
    WireStepDone done = Step(*p, std::move(run));
    ASSERT_TRUE(done.status.ok()) << done.status.ToString();
    EXPECT_EQ(done.step_id, step_id++);
    EXPECT_EQ(done.handle, "p1");
    ASSERT_EQ(done.fetched.size(), 1u);
    EXPECT_EQ(done.fetched[0].first, "y:0");
    EXPECT_EQ(done.fetched[0].second.data<float>()[0], x * x + 1);
    EXPECT_EQ(done.fetched[0].second.data<float>()[1], 4 * x * x + 1);
    bool saw_y = false;
    for (const NodeExecStats& n : done.stats) saw_y = saw_y || n.node_name == "y";
    EXPECT_TRUE(saw_y) << "collect_stats asked for every node's stats";
  }
}

// A master in this process deregisters a partition with the device actor
// itself (a local session's Run placed again): the partition actor ends,
// and a step sent by handle through the device actor finds none. Another
// partition of the device runs on.
TEST_F(RuntimeActorsTest, ADeregisteredPartitionEndsAndRunsNoMoreSteps) {
  auto p = Register(SquarePlusOne("p1"));
  auto q = Register(SquarePlusOne("p2"));
  ASSERT_TRUE(p.ok() && q.ok());
  ASSERT_TRUE(Step(*p, WireRunStep{31, "p1", {{"x:0", Tensor::Scalar<float>(2)}}, false, {}}).status.ok());
  caf::scoped_actor self{*system_};
  self->monitor(*p);
  self->send(device_actor_, WireDeregisterPartition{"p1"});
  bool ended = false;
  self->receive([&](caf::down_msg& down) { ended = down.source == p->address(); }, caf::after(10s) >> [] {});
  EXPECT_TRUE(ended) << "the partition actor did not end";
  WireStepDone gone =
      Step(device_actor_, WireRunStep{32, "p1", {{"x:0", Tensor::Scalar<float>(2)}}, false, {}});
  EXPECT_EQ(gone.status.code(), Code::kNotFound) << gone.status.ToString();
  WireStepDone other = Step(*q, WireRunStep{33, "p2", {{"x:0", Tensor::Scalar<float>(3)}}, false, {}});
  ASSERT_TRUE(other.status.ok()) << other.status.ToString();
  EXPECT_EQ(other.fetched[0].second.data<float>()[0], 10.0f);
}

// A master that resends a step (after a lost connection) must not run it
// twice: the partition answers the first delivery only.
TEST_F(RuntimeActorsTest, StepDeliveredTwiceRunsOnce) {
  auto p = Register(SquarePlusOne("p1"));
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  WireStepDone done = Step(*p, WireRunStep{21, "p1", {{"x:0", Tensor::Scalar<float>(2)}}, false, {}});
  ASSERT_TRUE(done.status.ok()) << done.status.ToString();
  caf::scoped_actor self{*system_};
  self->send(*p, WireRunStep{21, "p1", {{"x:0", Tensor::Scalar<float>(5)}}, false, {}});
  bool answered = false;
  self->receive([&](WireStepDone&) { answered = true; }, caf::after(300ms) >> [] {});
  EXPECT_FALSE(answered) << "step 21 ran a second time";
  done = Step(*p, WireRunStep{22, "p1", {{"x:0", Tensor::Scalar<float>(5)}}, false, {}});
  ASSERT_TRUE(done.status.ok()) << done.status.ToString();
  EXPECT_EQ(done.fetched[0].second.data<float>()[0], 26.0f);
}

// Inside a process the messages carry refcounted tensors: the fetched
// tensor of "y = Identity(x)" is the fed buffer itself.
TEST_F(RuntimeActorsTest, InProcessDeliveryNeverCopiesTensorBytes) {
  Scope s = Scope::NewRootScope();
  Identity(s.WithOpName("y"), Placeholder(s.WithOpName("x"), DT_FLOAT));
  auto full = Graph::FromGraphDef(*s.ToGraphDef());
  auto sub = BuildSubgraph(**full, SubgraphSpec{{"x:0"}, {"y:0"}, {}, device_name()});
  ASSERT_TRUE(sub.ok());
  WireRegisterPartition reg{"id", device_name(), (*sub)->ToGraphDef(), 1, "", {"x:0"}, {"y:0"}, 1, 0, {}};
  auto p = Register(reg);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  Tensor big(DT_FLOAT, {1 << 20});
  WireStepDone done = Step(*p, WireRunStep{1, "id", {{"x:0", big}}, false, {}});
  ASSERT_TRUE(done.status.ok()) << done.status.ToString();
  ASSERT_EQ(done.fetched.size(), 1u);
  EXPECT_EQ(done.fetched[0].second.raw_data(), big.raw_data());
}

// Two partitions of one step on two devices of this task: "x2 = x * 2" on
// CPU:0 sends to CPU:1, where "y = -x2" is fetched. The tensor crosses in
// the task's shared rendezvous, whichever partition starts first.
TEST_F(RuntimeActorsTest, PartitionsOfAStepShareTheTasksRendezvous) {
  const std::string cpu0 = devices_[0]->name(), cpu1 = devices_[1]->name();
  auto send_recv_attrs = [&](NodeDef* n) {
    n->attrs["tensor_type"] = AttrValue::Type(DT_FLOAT);
    n->attrs["T"] = AttrValue::Type(DT_FLOAT);
    n->attrs["tensor_name"] = AttrValue::String("x2:0");
    n->attrs["send_device"] = AttrValue::String(cpu0);
    n->attrs["send_device_incarnation"] = AttrValue::Int(1);
    n->attrs["recv_device"] = AttrValue::String(cpu1);
    n->attrs["client_terminated"] = AttrValue::Bool(false);
  };
  Scope s0 = Scope::NewRootScope();
  Mul(s0.WithOpName("x2"), Placeholder(s0.WithOpName("x"), DT_FLOAT), 2.0f);
  auto g0 = Graph::FromGraphDef(*s0.ToGraphDef());
  auto sub0 = BuildSubgraph(**g0, SubgraphSpec{{"x:0"}, {}, {"x2"}, cpu0});
  ASSERT_TRUE(sub0.ok()) << sub0.status().ToString();
  GraphDef def0 = (*sub0)->ToGraphDef();
  NodeDef send;
  send.name = "send_x2";
  send.op = "_Send";
  send.inputs = {"x2"};
  send_recv_attrs(&send);
  send.attrs.erase("tensor_type");
  def0.nodes.push_back(send);
  GraphDef def1;
  NodeDef recv;
  recv.name = "recv_x2";
  recv.op = "_Recv";
  send_recv_attrs(&recv);
  recv.attrs.erase("T");
  NodeDef neg;
  neg.name = "y";
  neg.op = "Neg";
  neg.inputs = {"recv_x2"};
  neg.attrs["T"] = AttrValue::Type(DT_FLOAT);
  def1.nodes = {recv, neg};
  auto g1 = Graph::FromGraphDef(def1);
  ASSERT_TRUE(g1.ok()) << g1.status().ToString();
  auto sub1 = BuildSubgraph(**g1, SubgraphSpec{{}, {"y:0"}, {}, cpu1});
  ASSERT_TRUE(sub1.ok()) << sub1.status().ToString();
  auto p0 = Register({"a", cpu0, def0, 1, "", {"x:0"}, {}, 2, 0, {}}, 0);
  auto p1 = Register({"b", cpu1, (*sub1)->ToGraphDef(), 1, "", {}, {"y:0"}, 2, 0, {}}, 1);
  ASSERT_TRUE(p0.ok()) << p0.status().ToString();
  ASSERT_TRUE(p1.ok()) << p1.status().ToString();
  for (int64_t step = 1; step <= 20; ++step) {
    const float x = static_cast<float>(step);
    caf::scoped_actor self{*system_};
    // Odd steps start the receiving partition first.
    WireRunStep run0{step, "a", {{"x:0", Tensor::Scalar<float>(x)}}, false, {}};
    WireRunStep run1{step, "b", {}, false, {}};
    if (step % 2) {
      self->send(*p1, run1);
      self->send(*p0, run0);
    } else {
      self->send(*p0, run0);
      self->send(*p1, run1);
    }
    std::map<std::string, WireStepDone> done;
    for (int i = 0; i < 2; ++i) {
      self->receive([&](WireStepDone& d) { done[d.handle] = std::move(d); },
                    caf::after(10s) >> [] {});
    }
    ASSERT_EQ(done.size(), 2u);
    ASSERT_TRUE(done["a"].status.ok()) << done["a"].status.ToString();
    ASSERT_TRUE(done["b"].status.ok()) << done["b"].status.ToString();
    EXPECT_EQ(done["b"].fetched.at(0).second.data<float>()[0], -2 * x);
  }
  EXPECT_EQ(rendezvous_->size(), 0u) << "every finished step's rendezvous is removed";

  // Deregistered, the partitions take their endpoints with them; the
  // device actors go on, and the same graphs registered anew run again.
  EXPECT_EQ(rendezvous_->endpoints().sends(), 1u);
  EXPECT_EQ(rendezvous_->endpoints().recvs(), 1u);
  caf::anon_send(device_actor_, WireDeregisterPartition{"a"});
  caf::anon_send(second_device_actor_, WireDeregisterPartition{"b"});
  for (int i = 0; i < 1000 && rendezvous_->endpoints().sends() + rendezvous_->endpoints().recvs() > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(rendezvous_->endpoints().sends(), 0u);
  EXPECT_EQ(rendezvous_->endpoints().recvs(), 0u);
  auto again0 = Register({"a2", cpu0, def0, 1, "", {"x:0"}, {}, 2, 0, {}}, 0);
  auto again1 = Register({"b2", cpu1, (*sub1)->ToGraphDef(), 1, "", {}, {"y:0"}, 2, 0, {}}, 1);
  ASSERT_TRUE(again0.ok()) << again0.status().ToString();
  ASSERT_TRUE(again1.ok()) << again1.status().ToString();
  caf::scoped_actor self{*system_};
  self->send(*again1, WireRunStep{21, "b2", {}, false, {}});
  self->send(*again0, WireRunStep{21, "a2", {{"x:0", Tensor::Scalar<float>(21)}}, false, {}});
  std::map<std::string, WireStepDone> done;
  for (int i = 0; i < 2; ++i) {
    self->receive([&](WireStepDone& d) { done[d.handle] = std::move(d); }, caf::after(10s) >> [] {});
  }
  ASSERT_EQ(done.count("b2"), 1u);
  ASSERT_TRUE(done["b2"].status.ok()) << done["b2"].status.ToString();
  EXPECT_EQ(done["b2"].fetched.at(0).second.data<float>()[0], -42.0f);
}

TEST_F(RuntimeActorsTest, BadRegistrationsAreRefusedByName) {
  WireRegisterPartition wrong_device = SquarePlusOne("p1");
  wrong_device.device = "/job:localhost/replica:0/task:0/device:CPU:3";
  auto r = Register(wrong_device);
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_NE(r.status().message().find("device:CPU:3"), std::string::npos) << r.status().ToString();

  WireRegisterPartition missing_fetch = SquarePlusOne("p2");
  missing_fetch.fetches.push_back("nope:0");
  r = Register(missing_fetch);
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_NE(r.status().message().find("fetch 'nope:0'"), std::string::npos) << r.status().ToString();

  WireRegisterPartition unfed = SquarePlusOne("p3");
  unfed.feeds.clear();
  r = Register(unfed);
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_NE(r.status().message().find("'x:0' but it is not a feed"), std::string::npos)
      << r.status().ToString();

  WireRegisterPartition no_kernel = SquarePlusOne("p4");
  NodeDef h;
  h.name = "h";
  h.op = "Placeholder";
  h.attrs["dtype"] = AttrValue::Type(DT_FLOAT);
  NodeDef cast;  // Cast declares any type, but no kernel makes strings
  cast.name = "cast_h";
  cast.op = "Cast";
  cast.inputs = {"h"};
  cast.attrs["SrcT"] = AttrValue::Type(DT_FLOAT);
  cast.attrs["DstT"] = AttrValue::Type(DT_STRING);
  no_kernel.graph.nodes.push_back(h);
  no_kernel.graph.nodes.push_back(cast);
  r = Register(no_kernel);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("partition 'p4'"), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find("cast_h"), std::string::npos) << r.status().ToString();

  ASSERT_TRUE(Register(SquarePlusOne("p5")).ok());
  r = Register(SquarePlusOne("p5"));
  EXPECT_EQ(r.status().code(), Code::kAlreadyExists) << r.status().ToString();
}

TEST_F(RuntimeActorsTest, BadRunStepFailsThatStepOnly) {
  auto p = Register(SquarePlusOne("p1"));
  ASSERT_TRUE(p.ok());
  WireStepDone done = Step(*p, WireRunStep{1, "p1", {}, false, {}});
  EXPECT_EQ(done.status.code(), Code::kInvalidArgument);
  EXPECT_NE(done.status.message().find("lacks feed 'x:0'"), std::string::npos)
      << done.status.ToString();
  done = Step(*p, WireRunStep{2, "other", {{"x:0", Tensor::Scalar<float>(1)}}, false, {}});
  EXPECT_EQ(done.status.code(), Code::kInvalidArgument);
  done = Step(*p, WireRunStep{3, "p1", {{"x:0", Tensor::Scalar<int32_t>(1)}}, false, {}});
  EXPECT_FALSE(done.status.ok()) << "an int32 feed into a float _Recv";
  done = Step(*p, WireRunStep{4, "p1", {{"x:0", Tensor::Scalar<float>(2)}}, false, {}});
  ASSERT_TRUE(done.status.ok()) << done.status.ToString();
  EXPECT_EQ(done.fetched[0].second.data<float>()[0], 5.0f);
  EXPECT_EQ(rendezvous_->size(), 0u);
}

TEST_F(RuntimeActorsTest, AbortStepFailsAWaitingRecvWithTheAbortStatus) {
  WireRegisterPartition reg;
  reg.handle = "waits";
  reg.device = device_name();
  reg.graph.nodes.push_back(test::RecvNobodySends("r", device_name()));
  NodeDef neg;
  neg.name = "after";
  neg.op = "Neg";
  neg.inputs = {"r"};
  neg.attrs["T"] = AttrValue::Type(DT_FLOAT);
  reg.graph.nodes.push_back(neg);
  auto p = Register(reg);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  const WireAbortStep abort{5, errors::Aborted("step 5 aborted by the test")};
  const auto start = std::chrono::steady_clock::now();
  WireStepDone done = Step(*p, WireRunStep{5, "waits", {}, true, {}}, &abort);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_EQ(done.step_id, 5);
  // The abort's status, with the node it stopped named.
  EXPECT_EQ(done.status.code(), Code::kAborted);
  EXPECT_EQ(done.status.message(), "node 'r' (op '_Recv'): step 5 aborted by the test");
  for (const NodeExecStats& n : done.stats) EXPECT_NE(n.node_name, "after") << "ran after an abort";
  // An abort for a step that is not running changes nothing.
  caf::anon_send(*p, WireAbortStep{99, errors::Aborted("late")});
}

// Steps that follow another (WireRunStep::after_step), sent to the
// partition as a master sends them ahead: each waits for the step it
// follows, a follower of a failed step fails without running, an abort
// ends one that waits, and a second follower of one step is answered
// rather than dropped.
TEST_F(RuntimeActorsTest, AFollowerWaitsForItsStepAndFailsWithIt) {
  auto p = Register(SquarePlusOne("p1"));
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  auto run = [](int64_t step, int64_t after, bool with_feed = true) {
    WireRunStep r;
    r.step_id = step;
    r.handle = "p1";
    if (with_feed) r.feeds = {{"x:0", Tensor::Scalar<float>(static_cast<float>(step))}};
    r.after_step = after;
    return r;
  };
  caf::scoped_actor self{*system_};
  std::map<int64_t, WireStepDone> done;
  auto receive = [&](size_t until) {
    while (done.size() < until) {
      bool got = false;
      self->receive([&](WireStepDone& d) { got = true; done[d.step_id] = std::move(d); },
                    caf::after(10s) >> [] {});
      if (!got) return;
    }
  };
  // 41 follows 40, which has not come yet; 42 claims to follow 40 too.
  self->send(*p, run(41, 40));
  self->send(*p, run(42, 40));
  receive(1);
  ASSERT_EQ(done.count(42), 1u) << "41 ran before 40, or 42 was dropped";
  EXPECT_EQ(done[42].status.code(), Code::kInternal) << done[42].status.ToString();
  self->send(*p, run(40, 0));
  receive(3);
  ASSERT_EQ(done.size(), 3u);
  ASSERT_TRUE(done[40].status.ok()) << done[40].status.ToString();
  ASSERT_TRUE(done[41].status.ok()) << done[41].status.ToString();
  EXPECT_EQ(done[41].fetched[0].second.scalar<float>(), 41.0f * 41.0f + 1);

  // 50 fails (its feed is missing): 51, which follows it, fails unrun.
  self->send(*p, run(51, 50));
  self->send(*p, run(50, 0, /*with_feed=*/false));
  receive(5);
  ASSERT_EQ(done.size(), 5u);
  EXPECT_EQ(done[50].status.code(), Code::kInvalidArgument) << done[50].status.ToString();
  EXPECT_EQ(done[51].status.code(), Code::kAborted) << done[51].status.ToString();
  EXPECT_TRUE(done[51].fetched.empty());

  // 61 waits for 60, which never comes: an abort of 61 ends it.
  self->send(*p, run(61, 60));
  self->send(*p, WireAbortStep{61, errors::DeadlineExceeded("step 61 ran past its timeout")});
  receive(6);
  ASSERT_EQ(done.count(61), 1u);
  EXPECT_EQ(done[61].status.code(), Code::kDeadlineExceeded) << done[61].status.ToString();
  // No step, run or not, left its rendezvous behind.
  EXPECT_EQ(rendezvous_->size(), 0u);
}

TEST_F(RuntimeActorsTest, HealthPingIsAnsweredWithTheIncarnation) {
  caf::scoped_actor self{*system_};
  WireHealthPing got;
  self->request(device_actor_, 10s, WireHealthPing{41, 123456, 0})
      .receive([&](WireHealthPing& p) { got = p; }, [](caf::error&) {});
  EXPECT_EQ(got.sequence, 41u);
  EXPECT_EQ(got.sent_micros, 123456);
  EXPECT_EQ(got.incarnation, 7u);
}

TEST(CafErrorTest, StatusSurvivesTheRoundTripThroughACafError) {
  Status s = errors::NotFound("node 'x' (op 'Y'): gone");
  EXPECT_EQ(FromCafError(ToCafError(s)), s);
  EXPECT_TRUE(FromCafError(ToCafError(Status::OK())).ok());
  EXPECT_EQ(FromCafError(caf::make_error(caf::sec::request_timeout)).code(),
            Code::kDeadlineExceeded);
  EXPECT_EQ(FromCafError(caf::make_error(caf::sec::request_receiver_down)).code(),
            Code::kUnavailable);
}

}  // namespace
}  // namespace tact

// The Send and Recv endpoint actors (actors/endpoints.h) through the
// directory that kernels and links use: a step's tensor meets its Recv in
// either order, steps stay apart, aborts fail what waits and what comes,
// an ended endpoint answers, a removed graph ends the endpoints only it
// held, and a Send for another task leaves by its remote route.
#include "actors/endpoints.h"

#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "actors/actor_scheduler.h"
#include "actors/messages.h"

namespace tact {
namespace {
// What the test has the endpoints' owner actor do.
using OwnerCall = std::function<void(caf::event_based_actor*)>;
}  // namespace
}  // namespace tact

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<tact::OwnerCall>)

namespace tact {
namespace {

constexpr const char* kDev0 = "/job:worker/replica:0/task:0/device:CPU:0";
constexpr const char* kDev1 = "/job:worker/replica:0/task:0/device:CPU:1";
constexpr const char* kOtherTaskDev = "/job:worker/replica:0/task:1/device:CPU:0";

NodeDef EndpointNode(const std::string& op, const std::string& tensor, const std::string& recv_device) {
  NodeDef n;
  n.name = tensor + (op == "_Send" ? "/send" : "/recv");
  n.op = op;
  n.attrs["tensor_name"] = AttrValue::String(tensor);
  n.attrs["send_device"] = AttrValue::String(kDev0);
  n.attrs["recv_device"] = AttrValue::String(recv_device);
  n.attrs["send_device_incarnation"] = AttrValue::Int(3);
  return n;
}

// What a Recv was answered with.
struct Received {
  bool answered = false;
  Status status;
  Tensor tensor;
  std::thread::id thread;
};

class EndpointsTest : public ::testing::Test {
 protected:
  EndpointsTest() {
    UseActorScheduler(cfg_);
    system_ = std::make_unique<caf::actor_system>(cfg_);
    // Device-like: it adds endpoints, which are linked to it, and answers
    // an int while it lives.
    owner_ = system_->spawn([](caf::event_based_actor* self) -> caf::behavior {
      return {[self](std::shared_ptr<OwnerCall>& call) { (*call)(self); }, [](int x) { return x; }};
    });
  }
  ~EndpointsTest() override {
    caf::anon_send_exit(owner_, caf::exit_reason::user_shutdown);
    system_.reset();
  }

  // Adds `graph`'s endpoints to `endpoints` from the owner actor.
  StatusOr<Endpoints::Keys> AddFromOwner(Endpoints& endpoints, const GraphDef& graph) {
    std::promise<StatusOr<Endpoints::Keys>> added;
    caf::anon_send(owner_, std::make_shared<OwnerCall>([&](caf::event_based_actor* self) {
                     added.set_value(endpoints.Add(self, graph));
                   }));
    return added.get_future().get();
  }

  bool OwnerLives() {
    caf::scoped_actor asker(*system_);
    bool answered = false;
    asker->request(owner_, std::chrono::seconds(10), 7)
        .receive([&](int x) { answered = x == 7; }, [](const caf::error&) {});
    return answered;
  }

  // The endpoints of a Send and Recv of x:0 from CPU:0 to CPU:1.
  StatusOr<Endpoints::Keys> AddPair(Endpoints& endpoints) {
    GraphDef g;
    g.nodes = {EndpointNode("_Send", "x:0", kDev1), EndpointNode("_Recv", "x:0", kDev1)};
    return AddFromOwner(endpoints, g);
  }

  static Rendezvous::DoneCallback Into(Received* r) {
    return [r](const Status& s, const Tensor& t) {
      r->answered = true;
      r->status = s;
      r->tensor = t;
      r->thread = std::this_thread::get_id();
    };
  }

  const std::string key_ = RendezvousKey(kDev0, 3, kDev1, "x:0");
  caf::actor_system_config cfg_;
  std::unique_ptr<caf::actor_system> system_;
  caf::actor owner_;
};

TEST_F(EndpointsTest, ATensorMeetsItsRecvInEitherOrderOnTheCallersThreadWithoutACopy) {
  Endpoints endpoints;
  ASSERT_TRUE(AddPair(endpoints).ok());
  EXPECT_EQ(endpoints.sends(), 1u);
  EXPECT_EQ(endpoints.recvs(), 1u);
  const Tensor t = Tensor::FromVector<float>({1, 2, 3}, TensorShape({3}));

  // Sent first: held until the Recv asks.
  Status sent = errors::Unknown("not answered");
  ASSERT_TRUE(endpoints.SendAsync(1, key_, t, [&](const Status& s) { sent = s; }));
  EXPECT_TRUE(sent.ok()) << sent.ToString();
  Received first;
  ASSERT_TRUE(endpoints.RecvAsync(1, key_, Into(&first)));
  ASSERT_TRUE(first.answered);
  EXPECT_TRUE(first.status.ok()) << first.status.ToString();
  EXPECT_TRUE(first.tensor.SharesBufferWith(t));  // no byte copied
  EXPECT_EQ(first.thread, std::this_thread::get_id());

  // Asked first: answered when the tensor comes.
  Received second;
  ASSERT_TRUE(endpoints.RecvAsync(2, key_, Into(&second)));
  EXPECT_FALSE(second.answered);
  ASSERT_TRUE(endpoints.SendAsync(2, key_, t, [](const Status&) {}));
  ASSERT_TRUE(second.answered);
  EXPECT_TRUE(second.status.ok());
  EXPECT_EQ(second.tensor.data<float>()[2], 3.0f);
}

TEST_F(EndpointsTest, StepsStayApartAndASecondRecvOfAStepIsRefused) {
  Endpoints endpoints;
  ASSERT_TRUE(AddPair(endpoints).ok());
  ASSERT_TRUE(endpoints.SendAsync(8, key_, Tensor::Scalar<float>(8), [](const Status&) {}));
  ASSERT_TRUE(endpoints.SendAsync(7, key_, Tensor::Scalar<float>(7), [](const Status&) {}));
  Received r7, r8, again;
  endpoints.RecvAsync(7, key_, Into(&r7));
  endpoints.RecvAsync(8, key_, Into(&r8));
  ASSERT_TRUE(r7.answered && r8.answered);
  EXPECT_EQ(r7.tensor.data<float>()[0], 7.0f);
  EXPECT_EQ(r8.tensor.data<float>()[0], 8.0f);

  Received waiting;
  endpoints.RecvAsync(9, key_, Into(&waiting));
  endpoints.RecvAsync(9, key_, Into(&again));
  ASSERT_TRUE(again.answered);
  EXPECT_EQ(again.status.code(), Code::kAlreadyExists);
  EXPECT_NE(again.status.message().find(key_), std::string::npos) << again.status.ToString();
  EXPECT_FALSE(waiting.answered);
  endpoints.SendAsync(9, key_, Tensor::Scalar<float>(9), [](const Status&) {});
  EXPECT_TRUE(waiting.answered && waiting.status.ok());
}

TEST_F(EndpointsTest, AnAbortFailsTheWaitingAndLaterRecvsOfItsStepOnly) {
  Endpoints endpoints;
  ASSERT_TRUE(AddPair(endpoints).ok());
  Received waiting, late, other;
  endpoints.RecvAsync(5, key_, Into(&waiting));
  endpoints.Abort(5, errors::Aborted("step 5 lost a task"));
  ASSERT_TRUE(waiting.answered);
  EXPECT_EQ(waiting.status.code(), Code::kAborted);
  EXPECT_EQ(waiting.status.message(), "step 5 lost a task");

  // A tensor for the aborted step is dropped; its later Recv fails too.
  endpoints.SendAsync(5, key_, Tensor::Scalar<float>(5), [](const Status&) {});
  endpoints.RecvAsync(5, key_, Into(&late));
  ASSERT_TRUE(late.answered);
  EXPECT_EQ(late.status.code(), Code::kAborted);

  endpoints.SendAsync(6, key_, Tensor::Scalar<float>(6), [](const Status&) {});
  endpoints.RecvAsync(6, key_, Into(&other));
  ASSERT_TRUE(other.answered);
  EXPECT_TRUE(other.status.ok());
  EXPECT_EQ(other.tensor.data<float>()[0], 6.0f);
}

// Unavailable, as for a lost task: the master retries such a step.
TEST_F(EndpointsTest, ARecvWaitingWhenItsEndpointEndsAndALateSendAreUnavailableNamingTheKey) {
  Endpoints endpoints;
  GraphDef g;
  g.nodes = {EndpointNode("_Send", "x:0", kDev1), EndpointNode("_Recv", "x:0", kDev1)};
  ASSERT_TRUE(AddFromOwner(endpoints, g).ok());
  std::promise<Status> answered;
  endpoints.RecvAsync(1, key_, [&](const Status& s, const Tensor&) { answered.set_value(s); });
  caf::anon_send_exit(owner_, caf::exit_reason::user_shutdown);  // its endpoints are linked to it
  std::future<Status> f = answered.get_future();
  ASSERT_EQ(f.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  const Status s = f.get();
  EXPECT_EQ(s.code(), Code::kUnavailable);
  EXPECT_NE(s.message().find(key_), std::string::npos) << s.ToString();

  // The Send endpoint ends with it (its exit may come a little later): a
  // Send that still finds it is answered as its call is dropped, not left
  // waiting.
  Status send_status;
  for (int i = 0; i < 1000 && send_status.ok(); ++i) {
    std::promise<Status> sent;
    ASSERT_TRUE(endpoints.SendAsync(2, key_, Tensor::Scalar<float>(2),
                                    [&](const Status& st) { sent.set_value(st); }));
    std::future<Status> sf = sent.get_future();
    ASSERT_EQ(sf.wait_for(std::chrono::seconds(10)), std::future_status::ready);
    send_status = sf.get();
    if (send_status.ok()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(send_status.code(), Code::kUnavailable);
  EXPECT_NE(send_status.message().find("Send endpoint for rendezvous key '" + key_), std::string::npos)
      << send_status.ToString();
}

TEST_F(EndpointsTest, PartitionsHoldingTheSameKeysShareTheirEndpoints) {
  Endpoints endpoints;
  GraphDef g;
  g.nodes = {EndpointNode("_Send", "x:0", kDev1), EndpointNode("_Recv", "x:0", kDev1),
             EndpointNode("_Recv", "y:0", kDev1)};
  ASSERT_TRUE(AddFromOwner(endpoints, g).ok());
  ASSERT_TRUE(AddFromOwner(endpoints, g).ok());
  EXPECT_EQ(endpoints.sends(), 1u);
  EXPECT_EQ(endpoints.recvs(), 2u);
  // The client's feeds and fetches are not endpoints.
  NodeDef feed = EndpointNode("_Recv", "z:0", kDev1);
  feed.attrs["client_terminated"] = AttrValue::Bool(true);
  GraphDef with_feed;
  with_feed.nodes = {feed};
  ASSERT_TRUE(AddFromOwner(endpoints, with_feed).ok());
  EXPECT_EQ(endpoints.recvs(), 2u);
  Status s = errors::Unknown("not answered");
  EXPECT_FALSE(endpoints.SendAsync(1, RendezvousKey(kDev0, 3, kDev1, "z:0"), Tensor::Scalar<float>(1),
                                   [&](const Status& st) { s = st; }));
  EXPECT_EQ(s.code(), Code::kUnknown);  // not called
}

TEST_F(EndpointsTest, ANodeWhoseAttrsMakeNoKeyIsNamed) {
  Endpoints endpoints;
  NodeDef bad = EndpointNode("_Recv", "x:0", kDev1);
  bad.attrs.erase("send_device");
  GraphDef g;
  g.nodes = {bad};
  const Status s = AddFromOwner(endpoints, g).status();
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("x:0/recv"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("send_device"), std::string::npos) << s.ToString();
}

TEST_F(EndpointsTest, ASendForAnotherTaskLeavesByItsRouteAndArrivesByDeliver) {
  struct Shipped {
    std::string task, key;
    int64_t step = 0;
    Tensor tensor;
  } shipped;
  Endpoints sender("/job:worker/replica:0/task:0",
                   [&](const std::string& task, int64_t step, const std::string& key, const Tensor& t) {
                     shipped = {task, key, step, t};
                     return task == "/job:worker/replica:0/task:1" ? Status::OK()
                                                                   : errors::Unavailable("no link");
                   });
  GraphDef g;
  g.nodes = {EndpointNode("_Send", "x:0", kOtherTaskDev)};
  ASSERT_TRUE(AddFromOwner(sender, g).ok());
  const std::string key = RendezvousKey(kDev0, 3, kOtherTaskDev, "x:0");
  const Tensor t = Tensor::Scalar<float>(4);
  Status sent = errors::Unknown("not answered");
  ASSERT_TRUE(sender.SendAsync(11, key, t, [&](const Status& s) { sent = s; }));
  EXPECT_TRUE(sent.ok()) << sent.ToString();
  EXPECT_EQ(shipped.task, "/job:worker/replica:0/task:1");
  EXPECT_EQ(shipped.key, key);
  EXPECT_EQ(shipped.step, 11);
  EXPECT_TRUE(shipped.tensor.SharesBufferWith(t));

  // The receiving task's Recv endpoint takes it from its link.
  Endpoints receiver("/job:worker/replica:0/task:1", nullptr);
  GraphDef r;
  r.nodes = {EndpointNode("_Recv", "x:0", kOtherTaskDev)};
  ASSERT_TRUE(AddFromOwner(receiver, r).ok());
  EXPECT_FALSE(receiver.Deliver(11, "no;such;key", t));
  ASSERT_TRUE(receiver.Deliver(11, key, t));
  Received got;
  receiver.RecvAsync(11, key, Into(&got));
  ASSERT_TRUE(got.answered);
  EXPECT_EQ(got.tensor.data<float>()[0], 4.0f);
}

TEST_F(EndpointsTest, AGraphRemovedEndsTheEndpointsNoOtherGraphHoldsAndTheOwnerGoesOn) {
  Endpoints endpoints;
  GraphDef pair, shared_only;
  pair.nodes = {EndpointNode("_Send", "x:0", kDev1), EndpointNode("_Recv", "x:0", kDev1),
                EndpointNode("_Recv", "y:0", kDev1)};
  shared_only.nodes = {EndpointNode("_Recv", "x:0", kDev1)};
  StatusOr<Endpoints::Keys> pair_keys = AddFromOwner(endpoints, pair);
  StatusOr<Endpoints::Keys> shared_keys = AddFromOwner(endpoints, shared_only);
  ASSERT_TRUE(pair_keys.ok() && shared_keys.ok());
  EXPECT_EQ(pair_keys->sends.size(), 1u);
  EXPECT_EQ(pair_keys->recvs.size(), 2u);
  Received waiting_y;
  const std::string key_y = RendezvousKey(kDev0, 3, kDev1, "y:0");
  ASSERT_TRUE(endpoints.RecvAsync(1, key_y, Into(&waiting_y)));

  // x:0's Recv is still held by the other graph; its Send and y:0's Recv
  // were held by this one only.
  endpoints.Remove(*pair_keys);
  EXPECT_EQ(endpoints.sends(), 0u);
  EXPECT_EQ(endpoints.recvs(), 1u);
  EXPECT_FALSE(endpoints.SendAsync(2, key_, Tensor::Scalar<float>(1), [](const Status&) {}));
  EXPECT_FALSE(endpoints.RecvAsync(2, key_y, [](const Status&, const Tensor&) {}));
  for (int i = 0; i < 1000 && !waiting_y.answered; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE(waiting_y.answered);
  EXPECT_EQ(waiting_y.status.code(), Code::kUnavailable);
  EXPECT_NE(waiting_y.status.message().find(key_y), std::string::npos) << waiting_y.status.ToString();

  // The remaining endpoint still takes tensors; the last Remove ends it.
  ASSERT_TRUE(endpoints.Deliver(3, key_, Tensor::Scalar<float>(3)));
  Received got;
  ASSERT_TRUE(endpoints.RecvAsync(3, key_, Into(&got)));
  ASSERT_TRUE(got.answered);
  EXPECT_EQ(got.tensor.data<float>()[0], 3.0f);
  endpoints.Remove(*shared_keys);
  EXPECT_EQ(endpoints.recvs(), 0u);
  EXPECT_FALSE(endpoints.Deliver(4, key_, Tensor::Scalar<float>(4)));
  // Removing the same keys again changes nothing.
  endpoints.Remove(*shared_keys);
  EXPECT_EQ(endpoints.recvs(), 0u);
  EXPECT_TRUE(OwnerLives());  // the endpoints linked to it ended normally
}

TEST_F(EndpointsTest, ASendFindsTheRecvEndpointOfAGraphRegisteredAnew) {
  Endpoints endpoints;
  GraphDef send, recv;
  send.nodes = {EndpointNode("_Send", "x:0", kDev1)};
  recv.nodes = {EndpointNode("_Recv", "x:0", kDev1)};
  ASSERT_TRUE(AddFromOwner(endpoints, send).ok());
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE(round);
    StatusOr<Endpoints::Keys> recv_keys = AddFromOwner(endpoints, recv);
    ASSERT_TRUE(recv_keys.ok());
    Received got;
    ASSERT_TRUE(endpoints.RecvAsync(round, key_, Into(&got)));
    Status sent = errors::Unknown("not answered");
    ASSERT_TRUE(endpoints.SendAsync(round, key_, Tensor::Scalar<float>(round), [&](const Status& s) {
      sent = s;
    }));
    EXPECT_TRUE(sent.ok()) << sent.ToString();
    ASSERT_TRUE(got.answered);  // the Send did not go to the ended endpoint of the last round
    EXPECT_EQ(got.tensor.data<float>()[0], static_cast<float>(round));
    endpoints.Remove(*recv_keys);
  }
  EXPECT_EQ(endpoints.recvs(), 0u);
  EXPECT_TRUE(OwnerLives());
}

}  // namespace
}  // namespace tact

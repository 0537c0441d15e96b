// A registration whose large tensor attrs come on a tensor link (linked
// attrs, actors/bulk_transfer.h) waits for them in the task actor. If its
// master deregisters it meanwhile, the tensors' arrival must not register
// it after all: nothing would ever drop it again.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

#include "actors/actor_scheduler.h"
#include "actors/bulk_transfer.h"
#include "actors/messages.h"
#include "actors/rendezvous_mgr.h"
#include "actors/task_actor.h"
#include "devices/device_factory.h"

namespace tact {
namespace {

using namespace std::chrono_literals;

constexpr int64_t kLinkedStep = 99;

class TaskActorLinkedTest : public ::testing::Test {
 protected:
  TaskActorLinkedTest() {
    UseActorScheduler(cfg_);
    system_ = std::make_unique<caf::actor_system>(cfg_);
    auto devices = CreateDevices({{"CPU", 1}}, "/job:worker/replica:0/task:0", 1);
    EXPECT_TRUE(devices.ok()) << devices.status().ToString();
    device_ = std::move(devices->at(0));
    device_actor_ = SpawnDeviceActor(*system_, device_.get(), 7, rendezvous_);
    TaskActorConfig c;
    c.task = "/job:worker/replica:0/task:0";
    c.incarnation = 7;
    c.devices = {{device_->name(), device_actor_}};
    c.peers = std::make_shared<PeerTable>();
    c.rendezvous = rendezvous_;
    task_ = SpawnTaskActor(*system_, std::move(c));
  }
  ~TaskActorLinkedTest() override {
    for (const caf::actor& a : {master_, task_, device_actor_}) {
      if (a) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    }
    system_.reset();
  }

  // "w" holds a placeholder for its value, which comes linked.
  WireRegisterPartition LinkedRegistration() {
    NodeDef w;
    w.name = "w";
    w.op = "Const";
    w.attrs["dtype"] = AttrValue::Type(DT_FLOAT);
    w.attrs["value"] = AttrValue::FromTensor(Tensor(DT_FLOAT, TensorShape({0})));
    WireRegisterPartition reg;
    reg.handle = "p1";
    reg.device = device_->name();
    reg.graph.nodes = {w};
    reg.incarnation = 7;
    reg.linked_step = kLinkedStep;
    reg.linked_attrs = {LinkedAttrKey("w", "value")};
    return reg;
  }

  // A master actor that registers `reg` with the task actor, and on an int
  // deregisters it and answers once the task actor has taken that in (a
  // health ping queued behind it has come back).
  std::future<Status> RegisterFromMaster(WireRegisterPartition reg) {
    auto answer = std::make_shared<std::promise<Status>>();
    std::future<Status> f = answer->get_future();
    caf::actor task = task_;
    master_ = system_->spawn([task, reg, answer](caf::event_based_actor* self) -> caf::behavior {
      self->request(task, caf::infinite, reg)
          .then([answer](WirePartitionRegistered&) { answer->set_value(Status::OK()); },
                [answer](caf::error& e) { answer->set_value(FromCafError(e)); });
      return {[self, task, handle = reg.handle](int) {
        self->send(task, WireDeregisterPartition{handle});
        return self->delegate(task, WireHealthPing{});
      }};
    });
    return f;
  }

  // Waits until the registration waits for its tensors in the step's table.
  bool Waiting() {
    for (int i = 0; i < 2000 && rendezvous_->size() == 0; ++i) std::this_thread::sleep_for(5ms);
    return rendezvous_->size() == 1;
  }

  // How a step of partition "p1" sent to the device actor ends (its
  // partition, or the device actor for want of one, answers the sender).
  Status StepOnDevice() {
    caf::scoped_actor self{*system_};
    Status s = errors::Internal("no answer");
    self->send(device_actor_, WireRunStep{1, "p1", {}, false, {}});
    self->receive([&](WireStepDone& done) { s = done.status; }, caf::after(10s) >> [] {});
    return s;
  }

  caf::actor_system_config cfg_;
  std::unique_ptr<caf::actor_system> system_;
  std::unique_ptr<Device> device_;
  std::shared_ptr<RendezvousMgr> rendezvous_ = std::make_shared<RendezvousMgr>();
  caf::actor device_actor_, task_, master_;
};

TEST_F(TaskActorLinkedTest, ARegistrationIsMadeOnceItsLinkedTensorsArrive) {
  std::future<Status> registered = RegisterFromMaster(LinkedRegistration());
  ASSERT_TRUE(Waiting());
  EXPECT_EQ(registered.wait_for(100ms), std::future_status::timeout) << "registered before its tensor came";
  ASSERT_TRUE(rendezvous_->Deliver(kLinkedStep, LinkedAttrKey("w", "value"),
                                   Tensor::FromVector<float>({1, 2}, TensorShape({2})))
                  .ok());
  ASSERT_EQ(registered.wait_for(10s), std::future_status::ready);
  const Status s = registered.get();
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(rendezvous_->size(), 0u) << "the linked tensors' table stays";
  const Status step = StepOnDevice();
  EXPECT_TRUE(step.ok()) << step.ToString();
}

TEST_F(TaskActorLinkedTest, ARegistrationDeregisteredWhileItsTensorsComeIsRefusedAndRegistersNothing) {
  std::future<Status> registered = RegisterFromMaster(LinkedRegistration());
  ASSERT_TRUE(Waiting());
  caf::scoped_actor self{*system_};
  bool deregistered = false;
  self->request(master_, 10s, 1).receive([&](WireHealthPing&) { deregistered = true; }, [](caf::error&) {});
  ASSERT_TRUE(deregistered);

  ASSERT_TRUE(rendezvous_->Deliver(kLinkedStep, LinkedAttrKey("w", "value"),
                                   Tensor::FromVector<float>({1, 2}, TensorShape({2})))
                  .ok());
  ASSERT_EQ(registered.wait_for(10s), std::future_status::ready);
  const Status s = registered.get();
  EXPECT_EQ(s.code(), Code::kCancelled) << s.ToString();
  EXPECT_NE(s.message().find("partition 'p1': its master deregistered it"), std::string::npos) << s.ToString();
  EXPECT_EQ(rendezvous_->size(), 0u);
  EXPECT_EQ(StepOnDevice().code(), Code::kNotFound);
  EXPECT_EQ(rendezvous_->endpoints().recvs() + rendezvous_->endpoints().sends(), 0u);
}

}  // namespace
}  // namespace tact

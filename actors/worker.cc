// The worker process's actors: one device actor per device (as in a local
// session) under a task actor (actors/task_actor.h) that CAF's middleman
// publishes.
#include "actors/worker.h"

#include <algorithm>
#include <caf/io/all.hpp>
#include <condition_variable>
#include <mutex>
#include <random>

#include "actors/actor_scheduler.h"
#include "actors/cluster_connect.h"
#include "actors/cluster_gate.h"
#include "actors/inline_unit.h"
#include "actors/messages.h"
#include "actors/rendezvous_mgr.h"
#include "actors/step_link.h"
#include "actors/task_steps.h"
#include "actors/task_actor.h"
#include "actors/tensor_link.h"
#include "actors/wire_auth.h"
#include "devices/device_factory.h"

namespace tact {
namespace {

uint64_t NewIncarnation() {
  std::random_device rd;
  uint64_t x = (uint64_t{rd()} << 32) ^ rd();
  return x == 0 ? 1 : x;
}

class WorkerImpl final : public Worker {
 public:
  WorkerImpl(std::string task, std::vector<std::unique_ptr<Device>> devices)
      : task_(std::move(task)), incarnation_(NewIncarnation()), devices_(std::move(devices)) {}

  ~WorkerImpl() override {
    gate_.reset();  // no connection is handed to CAF from here on
    links_.reset();  // its readers deliver into the rendezvous and run kernels
    for (const caf::actor& a : actors_) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    actors_.clear();
    // An actor that ended on a thread of ours (a device's, a link's reader)
    // may still be finishing there (actors/inline_unit.h).
    if (system_ != nullptr) AwaitActorsDone(*system_);
    system_.reset();  // waits for the middleman
  }

  Status Init(const WorkerOptions& o, const TaskAddress& address) {
    UseActorScheduler(cfg_);
    AddRuntimeMessageTypes(cfg_);
    UseNetworking(cfg_, o.tls);
    UseClusterSecret(cfg_, o.secret);
    system_ = std::make_unique<caf::actor_system>(cfg_);
    auto peers = std::make_shared<PeerTable>();
    auto links = std::make_shared<TensorLinks*>(nullptr);
    auto rendezvous = std::make_shared<RendezvousMgr>(
        task_, [peers, links, task = task_](const std::string& recv_task, int64_t step_id,
                                            const std::string& key, const Tensor& tensor) {
          Peer peer = peers->Find(recv_task);
          if (!peer.actor) return errors::Unavailable("task ", task, " has no connection to task ", recv_task);
          if (*links != nullptr && peer.link_port != 0 &&
              (!tensor.IsInitialized() || TensorLinks::Carries(tensor.dtype()))) {
            return (*links)->Send(recv_task, peer.host, peer.link_port, peer.epoch, step_id, key, tensor);
          }
          caf::anon_send(peer.actor, WireRendezvousTensor{step_id, key, tensor});
          return Status::OK();
        });
    const std::string host = o.bind_host.empty() ? address.host : o.bind_host;
    auto steps = std::make_shared<TaskSteps>(task_, rendezvous);
    // Over TLS tensors stay on CAF's encrypted connections.
    if (!o.tls.enabled()) {
      const std::vector<std::string> tasks = o.cluster.Tasks();
      auto deliver = [rendezvous, steps](const LinkSender& from, int64_t step, const std::string& key,
                                         const Tensor& t) {
        if (IsStepMessage(key)) {
          steps->Take(from, step, key, t);
        } else {
          rendezvous->Deliver(step, key, t);
        }
      };
      // A master's link back is dropped with its session's link here.
      auto closed = [links, tasks](const LinkSender& from) {
        if (*links != nullptr && std::find(tasks.begin(), tasks.end(), from.task) == tasks.end()) {
          (*links)->Forget(from.task);
        }
      };
      // A tensor lost on its way fails its step's Recvs here at once, so
      // that the step's partitions end and its master recovers.
      auto lost = [rendezvous](const LinkSender&, int64_t step, const std::string&, const Status& why) {
        rendezvous->Abort(step, why);
      };
      TACT_ASSIGN_OR_RETURN(links_,
                            TensorLinks::Start(task_, host, ClusterKey(o.secret), deliver, closed, lost));
      *links = links_.get();
      steps->SetLinks(links_.get());
    }
    TaskActorConfig st;
    st.task = task_;
    st.incarnation = incarnation_;
    st.cluster = o.cluster;
    st.peers = peers;
    st.rendezvous = rendezvous;
    rendezvous_ = rendezvous;
    st.link_port = links_ ? links_->port() : 0;
    for (const auto& d : devices_) {
      actors_.push_back(SpawnDeviceActor(*system_, d.get(), incarnation_, rendezvous, steps));
      st.devices[d->name()] = actors_.back();
    }
    actors_.push_back(SpawnTaskActor(*system_, std::move(st)));
    if (o.on_actor_failure) {
      for (const caf::actor& a : actors_) Watch(a, o.on_actor_failure);
    }
    if (o.tls.enabled()) {
      caf::expected<uint16_t> port = PublishTaskOverTls(*system_, actors_.back(), address.port, host);
      if (!port) {
        return errors::Unavailable("task ", task_, " cannot listen on ", host, ":", address.port,
                                   ": ", system_->render(port.error()));
      }
      port_ = *port;
      return Status::OK();
    }
    StatusOr<std::unique_ptr<GateListener>> gate =
        GateListener::Start(*system_, actors_.back(), host, address.port, ClusterKey(o.secret), task_);
    if (!gate.ok()) return gate.status().WithPrefix("task " + task_ + " ");
    gate_ = std::move(gate).value();
    port_ = gate_->port();
    return Status::OK();
  }

  // `on_failure` hears of `actor` ending for any reason but a shutdown.
  void Watch(const caf::actor& actor, std::function<void(const Status&)> on_failure) {
    const std::string what = caf::to_string(actor.address());
    caf::actor_system* system = system_.get();
    actor->attach_functor([system, what, task = task_, on_failure](const caf::error& reason) {
      if (reason == caf::exit_reason::normal || reason == caf::exit_reason::user_shutdown) return;
      on_failure(errors::Internal("task ", task, ": actor ", what, " ended (", system->render(reason), ")"));
    });
  }

  const std::string& task() const override { return task_; }
  uint16_t port() const override { return port_; }
  uint64_t incarnation() const override { return incarnation_; }
  size_t RendezvousSteps() const override { return rendezvous_ ? rendezvous_->size() : 0; }

  void Wait() override {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return stopped_; });
  }
  void CrashAnActor() override { caf::anon_send_exit(actors_.front(), caf::exit_reason::kill); }

  void Stop() override {
    std::lock_guard<std::mutex> lock(mu_);
    stopped_ = true;
    cv_.notify_all();
  }

 private:
  const std::string task_;
  const uint64_t incarnation_;
  std::vector<std::unique_ptr<Device>> devices_;
  caf::actor_system_config cfg_;
  std::unique_ptr<caf::actor_system> system_;
  std::vector<caf::actor> actors_;  // the device actors, then the task actor
  std::unique_ptr<TensorLinks> links_;  // none over TLS
  std::shared_ptr<RendezvousMgr> rendezvous_;
  std::unique_ptr<GateListener> gate_;  // none over TLS
  uint16_t port_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopped_ = false;
};

}  // namespace

StatusOr<std::unique_ptr<Worker>> Worker::Start(const WorkerOptions& o) {
  const std::string task = TaskName(o.job, o.task);
  if (o.secret.size() < 16) {
    return errors::InvalidArgument("task ", task, " needs the cluster's secret (16 characters or more)");
  }
  Status tls = o.tls.Check();
  if (!tls.ok()) return tls.WithPrefix("task " + task + ": ");
  TACT_ASSIGN_OR_RETURN(TaskAddress address, o.cluster.Address(task));
  StatusOr<std::vector<std::unique_ptr<Device>>> devices =
      CreateDevices(o.device_count, task, o.intra_op_threads);
  if (!devices.ok()) return devices.status().WithPrefix("task " + task + ": ");
  auto worker = std::make_unique<WorkerImpl>(task, std::move(devices).value());
  TACT_RETURN_IF_ERROR(worker->Init(o, address));
  return std::unique_ptr<Worker>(std::move(worker));
}

}  // namespace tact

// The worker process's actors: one device actor per device (as in a local
// session) under a task actor that CAF's middleman publishes. Peers are
// connected when a partition first needs them, without blocking a CAF
// thread: the middleman actor's connect request answers with the peer's
// task actor.
#include "actors/worker.h"

#include <caf/io/all.hpp>
#include <condition_variable>
#include <mutex>
#include <random>
#include <set>

#include "actors/actor_scheduler.h"
#include "actors/cluster_connect.h"
#include "actors/messages.h"
#include "actors/rendezvous_mgr.h"
#include "devices/device_factory.h"
#include "graph/subgraph.h"

namespace tact {
namespace {

// A peer answers a connect at once unless it is down.
constexpr auto kConnectTimeout = std::chrono::seconds(10);

// The task actors of the other tasks this one sends to, read by Send
// kernels on device threads and written by the task actor.
class PeerTable {
 public:
  caf::actor Find(const std::string& task) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = peers_.find(task);
    return it == peers_.end() ? caf::actor() : it->second;
  }
  void Add(const std::string& task, caf::actor a) {
    std::lock_guard<std::mutex> lock(mu_);
    peers_[task] = std::move(a);
  }

 private:
  std::mutex mu_;
  std::map<std::string, caf::actor> peers_;
};

struct TaskState {
  std::string task;
  uint64_t incarnation = 0;
  ClusterSpec cluster;
  std::map<std::string, caf::actor> devices;  // by full name
  std::shared_ptr<PeerTable> peers;
  std::shared_ptr<RendezvousMgr> rendezvous;
};

using TaskSelf = caf::stateful_actor<TaskState>;

// Tasks (other than this one) that the partition's Sends deliver to.
std::set<std::string> PeerTasksOf(const TaskState& st, const GraphDef& graph) {
  std::set<std::string> tasks;
  for (const NodeDef& n : graph.nodes) {
    std::string recv;
    if (n.op != "_Send" || !GetAttr(n.attrs, "recv_device", &recv).ok()) continue;
    const std::string task = recv.substr(0, recv.find("/device:"));
    if (task != st.task && recv != kClientDevice) tasks.insert(task);
  }
  return tasks;
}

// Answers with the device actor's answer: the partition actor, or why not.
caf::response_promise Register(TaskSelf* self, WireRegisterPartition& reg) {
  TaskState& st = self->state;
  caf::response_promise promise = self->make_response_promise();
  auto device = st.devices.find(reg.device);
  if (device == st.devices.end()) {
    promise.deliver(ToCafError(errors::NotFound("partition '", reg.handle, "' is for device '",
                                                reg.device, "', which task ", st.task,
                                                " does not have")));
    return promise;
  }
  std::vector<std::pair<std::string, TaskAddress>> missing;
  for (const std::string& task : PeerTasksOf(st, reg.graph)) {
    if (st.peers->Find(task)) continue;
    StatusOr<TaskAddress> address = st.cluster.Address(task);
    if (!address.ok()) {
      promise.deliver(ToCafError(address.status().WithPrefix("partition '" + reg.handle + "': ")));
      return promise;
    }
    missing.emplace_back(task, *address);
  }
  if (missing.empty()) {
    promise.delegate(device->second, std::move(reg));
    return promise;
  }
  // Connect first: a Send must find its peer when it runs.
  auto left = std::make_shared<size_t>(missing.size());
  auto pending = std::make_shared<WireRegisterPartition>(std::move(reg));
  const caf::actor device_actor = device->second;
  for (const auto& [task, address] : missing) {
    self->request(self->system().middleman().actor_handle(), kConnectTimeout,
                  caf::connect_atom::value, address.host, address.port)
        .then(
            [self, task = task, left, pending, promise, device_actor](
                const caf::node_id&, caf::strong_actor_ptr& peer,
                const std::set<std::string>&) mutable {
              self->state.peers->Add(task, caf::actor_cast<caf::actor>(peer));
              if (--*left == 0) promise.delegate(device_actor, std::move(*pending));
            },
            [self, task = task, address = address, promise](caf::error& e) mutable {
              if (promise.pending()) {
                promise.deliver(ToCafError(errors::Unavailable(
                    "task ", self->state.task, " cannot reach task ", task, " at ",
                    address.ToString(), ": ", FromCafError(e).message())));
              }
            });
  }
  return promise;
}

caf::behavior TaskBehavior(TaskSelf* self, TaskState state) {
  self->state = std::move(state);
  return {
      [self](describe_atom) {
        WireTaskInfo info;
        info.task = self->state.task;
        info.incarnation = self->state.incarnation;
        for (const auto& [name, actor] : self->state.devices) info.devices.push_back(name);
        return info;
      },
      [self](WireRegisterPartition& reg) { return Register(self, reg); },
      [self](WireRendezvousTensor& t) {
        // An error here is a second tensor for one key, or an aborted
        // step: its Recv reports it.
        self->state.rendezvous->Deliver(t.step_id, t.key, t.tensor);
      },
      [self](WireHealthPing& ping) {
        ping.incarnation = self->state.incarnation;
        return ping;
      },
  };
}

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
    for (const caf::actor& a : actors_) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    actors_.clear();
    system_.reset();  // waits for the actors and the middleman
  }

  Status Init(const WorkerOptions& o, const TaskAddress& address) {
    UseActorScheduler(cfg_);
    AddRuntimeMessageTypes(cfg_);
    UseNetworking(cfg_);
    system_ = std::make_unique<caf::actor_system>(cfg_);
    auto peers = std::make_shared<PeerTable>();
    auto rendezvous = std::make_shared<RendezvousMgr>(
        task_, [peers, task = task_](const std::string& recv_task, int64_t step_id,
                                     const std::string& key, const Tensor& tensor) {
          caf::actor peer = peers->Find(recv_task);
          if (!peer) return errors::Unavailable("task ", task, " has no connection to task ", recv_task);
          caf::anon_send(peer, WireRendezvousTensor{step_id, key, tensor});
          return Status::OK();
        });
    TaskState st;
    st.task = task_;
    st.incarnation = incarnation_;
    st.cluster = o.cluster;
    st.peers = peers;
    st.rendezvous = rendezvous;
    for (const auto& d : devices_) {
      actors_.push_back(SpawnDeviceActor(*system_, d.get(), incarnation_, rendezvous));
      st.devices[d->name()] = actors_.back();
    }
    actors_.push_back(system_->spawn(TaskBehavior, std::move(st)));
    const std::string host = o.bind_host.empty() ? address.host : o.bind_host;
    caf::expected<uint16_t> port =
        system_->middleman().publish(actors_.back(), address.port, host.c_str(), /*reuse=*/true);
    if (!port) {
      return errors::Unavailable("task ", task_, " cannot listen on ", host, ":", address.port,
                                 ": ", system_->render(port.error()));
    }
    port_ = *port;
    return Status::OK();
  }

  const std::string& task() const override { return task_; }
  uint16_t port() const override { return port_; }
  uint64_t incarnation() const override { return incarnation_; }

  void Wait() override {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return stopped_; });
  }
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
  uint16_t port_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopped_ = false;
};

}  // namespace

StatusOr<std::unique_ptr<Worker>> Worker::Start(const WorkerOptions& o) {
  const std::string task = TaskName(o.job, o.task);
  TACT_ASSIGN_OR_RETURN(TaskAddress address, o.cluster.Address(task));
  StatusOr<std::vector<std::unique_ptr<Device>>> devices =
      CreateDevices(o.device_count, task, o.intra_op_threads);
  if (!devices.ok()) return devices.status().WithPrefix("task " + task + ": ");
  auto worker = std::make_unique<WorkerImpl>(task, std::move(devices).value());
  TACT_RETURN_IF_ERROR(worker->Init(o, address));
  return std::unique_ptr<Worker>(std::move(worker));
}

}  // namespace tact

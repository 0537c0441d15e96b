#include "actors/task_actor.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <mutex>
#include <set>

#include "actors/bulk_transfer.h"
#include "actors/cluster_connect.h"
#include "actors/messages.h"
#include "actors/partition.h"
#include "actors/rendezvous_mgr.h"
#include "actors/wire_auth.h"
#include "graph/logging.h"
#include "graph/subgraph.h"
#include "kernels/rendezvous.h"

namespace tact {

Peer PeerTable::Find(const std::string& task) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = peers_.find(task);
  return it == peers_.end() ? Peer() : it->second;
}

void PeerTable::Add(const std::string& task, Peer peer) {
  std::lock_guard<std::mutex> lock(mu_);
  peer.epoch = ++epochs_;
  peers_[task] = std::move(peer);
}

void PeerTable::Remove(const std::string& task) {
  std::lock_guard<std::mutex> lock(mu_);
  peers_.erase(task);
}


namespace {

// A peer answers a connect or a hello at once unless it is down.
constexpr auto kPeerTimeout = std::chrono::seconds(10);
constexpr const char* kHelloProof = "tact::hello";

using TaskSelf = caf::stateful_actor<TaskActorConfig>;

// What a hello signs: who says it, the actor and the link port it vouches
// for.
std::string HelloBytes(const std::string& task, const caf::actor& actor, uint16_t link_port,
                       const std::string& payload) {
  return task + "\n" + caf::to_string(actor.address()) + "\n" + std::to_string(link_port) + "\n" + payload;
}

Peer PeerAt(const TaskActorConfig& st, const std::string& task, caf::actor actor, uint16_t link_port,
            uint64_t incarnation = 0) {
  StatusOr<TaskAddress> a = st.cluster.Address(task);
  return Peer{std::move(actor), a.ok() ? a->host : std::string(), link_port, 0, incarnation};
}

// Tasks (other than this one) that the partition's Sends deliver to.
std::set<std::string> PeerTasksOf(const TaskActorConfig& st, const GraphDef& graph) {
  std::set<std::string> tasks;
  for (const NodeDef& n : graph.nodes) {
    std::string recv;
    if (n.op != "_Send" || !GetAttr(n.attrs, "recv_device", &recv).ok()) continue;
    const std::string task = recv.substr(0, recv.find("/device:"));
    if (task != st.task && recv != kClientDevice) tasks.insert(task);
  }
  return tasks;
}

// A registration whose tensor attrs travel on the link
// (actors/bulk_transfer.h), waiting for them.
struct LinkedRegistration {
  WireRegisterPartition reg;
  caf::actor_addr master;  // who asked: LinkedArrived checks that it still holds the registration
  caf::response_promise promise;
  std::mutex mu;  // guards what the link's threads fill in
  size_t left = 0;
  Status status;
  std::vector<std::pair<std::string, Tensor>> arrived;
};

}  // namespace
}  // namespace tact

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<tact::LinkedRegistration>)

namespace tact {
namespace {

// How long a registration waits for its linked tensors: well past what
// moving 2 GiB takes on a loaded machine, and under the master's own
// registration timeout, so that the error it sees is this one.
constexpr auto kLinkedTimeout = std::chrono::seconds(45);

// The device actor's answer: a PartitionRegistered, or why not.
void RegisterNow(TaskSelf* self, WireRegisterPartition& reg, caf::response_promise promise) {
  TaskActorConfig& st = self->state;
  auto device = st.devices.find(reg.device);
  if (device == st.devices.end()) {
    promise.deliver(ToCafError(errors::NotFound("partition '", reg.handle, "' is for device '",
                                                reg.device, "', which task ", st.task,
                                                " does not have")));
    return;
  }
  for (const std::string& task : PeerTasksOf(st, reg.graph)) {
    if (!st.peers->Find(task).actor) {
      // Unavailable: while a restarted task is being attached, its peers
      // may not know it yet; the master's next try will find it.
      promise.deliver(ToCafError(errors::Unavailable(
          "partition '", reg.handle, "' sends to task ", task, ", which task ", st.task,
          " has not been introduced to")));
      return;
    }
  }
  // For the steps a master without a link sends here (a failed registration
  // leaves an entry that no step uses).
  self->state.partition_devices[reg.handle] = device->second;
  promise.delegate(device->second, std::move(reg));
}

using MasterPartitions = std::vector<std::pair<caf::actor, std::string>>;  // (device actor, handle)

MasterPartitions::iterator FindHandle(MasterPartitions& partitions, const std::string& handle) {
  return std::find_if(partitions.begin(), partitions.end(), [&](const auto& p) { return p.second == handle; });
}

// Whether `master` registered `handle` here and has not deregistered it.
bool Recorded(TaskActorConfig& st, const caf::actor_addr& master, const std::string& handle) {
  auto it = st.master_partitions.find(master);
  return it != st.master_partitions.end() && FindHandle(it->second, handle) != it->second.end();
}

// Has `device` drop partition `handle`; steps sent through CAF find it no
// more. `master_gone` (why, if its master is gone): its unended steps are
// aborted too.
void DropPartition(TaskSelf* self, const caf::actor& device, const std::string& handle,
                   const std::string& master_gone = "") {
  self->send(device, drop_partition_atom::value, handle, master_gone);
  self->state.partition_devices.erase(handle);
}

// The linked tensors are all there, or one failed (or the wait ran out).
void LinkedArrived(TaskSelf* self, const std::shared_ptr<LinkedRegistration>& pending) {
  self->state.rendezvous->Release(pending->reg.linked_step);
  Status s = pending->status;
  // Registered now, it would stay: nothing would drop it again.
  if (s.ok() && pending->master && !Recorded(self->state, pending->master, pending->reg.handle)) {
    s = errors::Cancelled("its master deregistered it, or has gone, while its tensors arrived");
  }
  for (const auto& [key, tensor] : pending->arrived) {
    if (s.ok()) s = PutLinkedAttr(&pending->reg.graph, key, tensor);
  }
  if (!s.ok()) {
    pending->promise.deliver(ToCafError(s.WithPrefix("partition '" + pending->reg.handle + "': ")));
    return;
  }
  RegisterNow(self, pending->reg, pending->promise);
}

// Notes who registered the partition, so that it goes when its master
// does (TaskActorConfig::master_partitions), and returns that master.
caf::actor_addr RecordMaster(TaskSelf* self, const WireRegisterPartition& reg) {
  TaskActorConfig& st = self->state;
  const caf::actor master = caf::actor_cast<caf::actor>(self->current_sender());
  auto device = st.devices.find(reg.device);
  if (!master || device == st.devices.end()) return caf::actor_addr();
  // Monitored once: its entry stays, emptied or not, until it is gone.
  auto [entry, fresh] = st.master_partitions.try_emplace(master.address());
  if (fresh) self->monitor(master);
  entry->second.emplace_back(device->second, reg.handle);
  return master.address();
}

// The master that registered `d.handle` will run it no more. A handle
// that another master registered is not this one's to drop; one unknown
// (its registration failed, or it was dropped already) needs nothing.
void Deregister(TaskSelf* self, const WireDeregisterPartition& d) {
  TaskActorConfig& st = self->state;
  auto mine = st.master_partitions.find(self->current_sender() ? self->current_sender()->address()
                                                                : caf::actor_addr());
  if (mine != st.master_partitions.end()) {
    auto it = FindHandle(mine->second, d.handle);
    if (it != mine->second.end()) {
      DropPartition(self, it->first, d.handle);
      mine->second.erase(it);
      return;
    }
  }
  for (auto& [master, partitions] : st.master_partitions) {
    if (FindHandle(partitions, d.handle) != partitions.end()) {
      LogWarning("tact worker ", st.task, ": refused to deregister partition '", d.handle,
                 "' for a master that did not register it");
      return;
    }
  }
}

// The master is gone: its partitions here go too, and the steps it left
// running on them are aborted (a Dequeue of one would take an element
// nobody reads).
void DropPartitionsOf(TaskSelf* self, const caf::actor_addr& master, const caf::error& reason) {
  TaskActorConfig& st = self->state;
  auto it = st.master_partitions.find(master);
  if (it == st.master_partitions.end()) return;
  const std::string why = "the master that ran this step is gone (" + self->system().render(reason) + ")";
  for (const auto& [device, handle] : it->second) DropPartition(self, device, handle, why);
  st.master_partitions.erase(it);
}

caf::response_promise Register(TaskSelf* self, WireRegisterPartition& reg) {
  const caf::actor_addr master = RecordMaster(self, reg);
  caf::response_promise promise = self->make_response_promise();
  if (reg.linked_attrs.empty()) {
    RegisterNow(self, reg, promise);
    return promise;
  }
  auto pending = std::make_shared<LinkedRegistration>();
  pending->promise = promise;
  pending->master = master;
  pending->left = reg.linked_attrs.size();
  const std::vector<std::string> keys = reg.linked_attrs;
  const int64_t linked_step = reg.linked_step;
  pending->reg = std::move(reg);
  std::shared_ptr<Rendezvous> rendezvous = self->state.rendezvous->Find(linked_step, 1);
  caf::actor me = caf::actor_cast<caf::actor>(self);
  for (const std::string& key : keys) {
    rendezvous->RecvAsync(key, [pending, me, key](const Status& s, const Tensor& t) {
      std::lock_guard<std::mutex> lock(pending->mu);
      if (s.ok()) {
        pending->arrived.emplace_back(key, t);
      } else if (pending->status.ok()) {
        pending->status = s;
      }
      if (--pending->left == 0) caf::anon_send(me, linked_atom::value, pending);
    });
  }
  self->delayed_send(self, kLinkedTimeout, linked_timeout_atom::value, linked_step);
  return promise;
}

// Forgets each task after this one that it knows in another incarnation
// than `current` (the master's view): that process has gone, and a task
// connects only to the tasks it does not know. Without this a task
// restarted while no master watched would never be connected to again.
void ForgetGoneProcesses(TaskActorConfig& st, const std::map<std::string, uint64_t>& current) {
  for (const auto& [task, incarnation] : current) {
    if (task <= st.task) continue;
    const Peer peer = st.peers->Find(task);
    if (peer.actor && peer.incarnation != incarnation) {
      LogInfo("tact worker ", st.task, ": task ", task, " was started afresh (incarnation ", incarnation,
              ", not ", peer.incarnation, "); connecting to the new process");
      st.peers->Remove(task);
    }
  }
}

// Connects to every task named after this one that is not known yet, and
// says hello to it with proof of the cluster's secret.
caf::response_promise Introduce(TaskSelf* self) {
  TaskActorConfig& st = self->state;
  caf::response_promise promise = self->make_response_promise();
  std::vector<std::pair<std::string, TaskAddress>> todo;
  for (const std::string& task : st.cluster.Tasks()) {
    if (task > st.task && !st.peers->Find(task).actor) todo.emplace_back(task, *st.cluster.Address(task));
  }
  if (todo.empty()) {
    promise.deliver(WireIntroduced{});
    return promise;
  }
  auto left = std::make_shared<size_t>(todo.size());
  auto fail = [self, promise](const std::string& task, const TaskAddress& address,
                              const caf::error& e) mutable {
    if (promise.pending()) {
      promise.deliver(ToCafError(errors::Unavailable("task ", self->state.task, " cannot reach task ",
                                                     task, " at ", address.ToString(), ": ",
                                                     FromCafError(e).message())));
    }
  };
  for (const auto& [task, address] : todo) {
    self->request(ConnectionManager(self->system()), kPeerTimeout, caf::connect_atom::value,
                  address.host, address.port)
        .then(
            [=](const caf::node_id&, caf::strong_actor_ptr& ptr, const std::set<std::string>&) mutable {
              caf::actor peer = caf::actor_cast<caf::actor>(ptr);
              const std::string payload = NewClusterSecret();  // fresh random bytes
              const caf::actor me = caf::actor_cast<caf::actor>(self);
              const uint16_t my_port = self->state.link_port;
              StatusOr<std::string> proof = SignWireMessage(
                  self->system(), kHelloProof, HelloBytes(self->state.task, me, my_port, payload));
              self->request(peer, kPeerTimeout,
                            WireHello{self->state.task, my_port, payload, proof.ok() ? *proof : std::string()})
                  .then(
                      [=](const WireTaskInfo& info) mutable {
                        self->state.peers->Add(
                            task, PeerAt(self->state, task, peer, info.link_port, info.incarnation));
                        if (--*left == 0 && promise.pending()) promise.deliver(WireIntroduced{});
                      },
                      [=](caf::error& e) mutable { fail(task, address, e); });
            },
            [=](caf::error& e) mutable { fail(task, address, e); });
  }
  return promise;
}

// `actor` is the hello's sender: the proof covers it, so that a hello
// cannot be replayed from another actor.
caf::result<WireTaskInfo> Hello(TaskSelf* self, const WireHello& hello, const caf::actor& actor) {
  const std::string& task = hello.task;
  Status s = VerifyWireMessage(self->system(), kHelloProof,
                               HelloBytes(task, actor, hello.link_port, hello.payload), hello.proof);
  if (!s.ok()) {
    LogWarning("tact worker ", self->state.task, ": refused a hello as ", task, ": ", s.message());
    return ToCafError(errors::Unauthenticated("task ", self->state.task, " refuses a peer without the cluster's secret"));
  }
  if (!self->state.cluster.Address(task).ok() || task == self->state.task) {
    return ToCafError(errors::InvalidArgument("task ", self->state.task, " refuses a hello from '", task,
                                              "', which is not another task of its cluster"));
  }
  self->state.peers->Add(task, PeerAt(self->state, task, actor, hello.link_port));
  WireTaskInfo info;
  info.task = self->state.task;
  info.incarnation = self->state.incarnation;
  info.link_port = self->state.link_port;
  return info;
}

caf::result<WireTaskInfo> Describe(TaskSelf* self, const WireDescribe& describe) {
  Status s = VerifyWireMessage(self->system(), kDescribeProof, describe.payload, describe.proof);
  if (!s.ok()) {
    LogWarning("tact worker ", self->state.task, ": refused a master: ", s.message());
    return ToCafError(
        errors::Unauthenticated("task ", self->state.task, " refuses a master without the cluster's secret"));
  }
  WireTaskInfo info;
  info.task = self->state.task;
  info.incarnation = self->state.incarnation;
  info.link_port = self->state.link_port;
  for (const auto& [name, actor] : self->state.devices) info.devices.push_back(name);
  return info;
}

caf::behavior TaskBehavior(TaskSelf* self, TaskActorConfig config) {
  self->state = std::move(config);
  // A message that did not decode (unsigned, signed with another secret,
  // malformed, over the size limit) arrives empty: say so, and go on.
  self->set_default_handler([](caf::scheduled_actor* a, caf::message_view&) -> caf::result<caf::message> {
    LogWarning("tact worker: refused a message from ", caf::to_string(a->current_sender()),
               ": not signed with this cluster's secret, malformed, or too large");
    return caf::sec::unexpected_message;
  });
  // Only masters are monitored here.
  self->set_down_handler([self](caf::down_msg& down) { DropPartitionsOf(self, down.source, down.reason); });
  return {
      [self](const WireDescribe& describe) { return Describe(self, describe); },
      [self](WireRegisterPartition& reg) { return Register(self, reg); },
      [self](const WireDeregisterPartition& d) { Deregister(self, d); },
      [self](linked_atom, const std::shared_ptr<LinkedRegistration>& pending) {
        LinkedArrived(self, pending);
      },
      [self](linked_timeout_atom, int64_t linked_step) {
        // Released already if every tensor came.
        self->state.rendezvous->Abort(
            linked_step, errors::DeadlineExceeded("its tensor attrs did not arrive on the tensor link within ",
                                                  kLinkedTimeout.count(), " s"));
      },
      [self](const WireIntroduce& introduce) {
        for (const std::string& task : introduce.forget) self->state.peers->Remove(task);
        ForgetGoneProcesses(self->state, introduce.current);
        return Introduce(self);
      },
      [self](const WireHello& hello) {
        return Hello(self, hello, caf::actor_cast<caf::actor>(self->current_sender()));
      },
      [self](WireRendezvousTensor& t) {
        // An error here is a second tensor for one key, or an aborted
        // step: its Recv reports it.
        self->state.rendezvous->Deliver(t.step_id, t.key, t.tensor);
      },
      [self](WireHealthPing& ping) {
        ping.incarnation = self->state.incarnation;
        return ping;
      },
      // Steps of a master that has no link to this task (a TLS cluster, or
      // a link that failed): to the partition's device actor, whose
      // partition answers the master itself.
      [self](WireRunStep& step) {
        auto it = self->state.partition_devices.find(step.handle);
        if (it != self->state.partition_devices.end()) {
          self->delegate(it->second, std::move(step));
          return;
        }
        caf::anon_send(caf::actor_cast<caf::actor>(self->current_sender()),
                       NoSuchPartition(step, "task " + self->state.task));
      },
      [self](const WireAbortStep& abort) { self->state.rendezvous->Abort(abort.step_id, abort.status); },
  };
}

}  // namespace

caf::actor SpawnTaskActor(caf::actor_system& system, TaskActorConfig config) {
  return system.spawn(TaskBehavior, std::move(config));
}

}  // namespace tact

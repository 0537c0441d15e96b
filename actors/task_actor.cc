#include "actors/task_actor.h"

#include <cstdio>
#include <set>

#include "actors/cluster_connect.h"
#include "actors/rendezvous_mgr.h"
#include "actors/wire_auth.h"
#include "graph/subgraph.h"

namespace tact {

Peer PeerTable::Find(const std::string& task) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = peers_.find(task);
  return it == peers_.end() ? Peer() : it->second;
}

void PeerTable::Add(const std::string& task, Peer peer) {
  std::lock_guard<std::mutex> lock(mu_);
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

Peer PeerAt(const TaskActorConfig& st, const std::string& task, caf::actor actor, uint16_t link_port) {
  StatusOr<TaskAddress> a = st.cluster.Address(task);
  return Peer{std::move(actor), a.ok() ? a->host : std::string(), link_port};
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

// The device actor's answer: the partition actor, or why not.
caf::response_promise Register(TaskSelf* self, WireRegisterPartition& reg) {
  TaskActorConfig& st = self->state;
  caf::response_promise promise = self->make_response_promise();
  auto device = st.devices.find(reg.device);
  if (device == st.devices.end()) {
    promise.deliver(ToCafError(errors::NotFound("partition '", reg.handle, "' is for device '",
                                                reg.device, "', which task ", st.task,
                                                " does not have")));
    return promise;
  }
  for (const std::string& task : PeerTasksOf(st, reg.graph)) {
    if (!st.peers->Find(task).actor) {
      // Unavailable: while a restarted task is being attached, its peers
      // may not know it yet; the master's next try will find it.
      promise.deliver(ToCafError(errors::Unavailable(
          "partition '", reg.handle, "' sends to task ", task, ", which task ", st.task,
          " has not been introduced to")));
      return promise;
    }
  }
  promise.delegate(device->second, std::move(reg));
  return promise;
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
    promise.deliver(caf::unit);
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
              self->request(peer, kPeerTimeout, hello_atom::value, self->state.task, me, my_port,
                            payload, proof.ok() ? *proof : std::string())
                  .then(
                      [=](uint16_t peer_port) mutable {
                        self->state.peers->Add(task, PeerAt(self->state, task, peer, peer_port));
                        if (--*left == 0 && promise.pending()) promise.deliver(caf::unit);
                      },
                      [=](caf::error& e) mutable { fail(task, address, e); });
            },
            [=](caf::error& e) mutable { fail(task, address, e); });
  }
  return promise;
}

caf::result<uint16_t> Hello(TaskSelf* self, const std::string& task, const caf::actor& actor,
                            uint16_t link_port, const std::string& payload, const std::string& proof) {
  Status s = VerifyWireMessage(self->system(), kHelloProof, HelloBytes(task, actor, link_port, payload),
                               proof);
  if (!s.ok()) {
    std::fprintf(stderr, "tact worker %s: refused a hello as %s: %s\n", self->state.task.c_str(),
                 task.c_str(), s.message().c_str());
    return ToCafError(errors::Unauthenticated("task ", self->state.task, " refuses a peer without the cluster's secret"));
  }
  self->state.peers->Add(task, PeerAt(self->state, task, actor, link_port));
  return self->state.link_port;
}

caf::result<WireTaskInfo> Describe(TaskSelf* self, const std::string& payload, const std::string& proof) {
  Status s = VerifyWireMessage(self->system(), kDescribeProof, payload, proof);
  if (!s.ok()) {
    std::fprintf(stderr, "tact worker %s: refused a master: %s\n", self->state.task.c_str(),
                 s.message().c_str());
    return ToCafError(
        errors::Unauthenticated("task ", self->state.task, " refuses a master without the cluster's secret"));
  }
  WireTaskInfo info;
  info.task = self->state.task;
  info.incarnation = self->state.incarnation;
  for (const auto& [name, actor] : self->state.devices) info.devices.push_back(name);
  return info;
}

caf::behavior TaskBehavior(TaskSelf* self, TaskActorConfig config) {
  self->state = std::move(config);
  // A message that did not decode (unsigned, signed with another secret,
  // malformed, over the size limit) arrives empty: say so, and go on.
  self->set_default_handler([](caf::scheduled_actor* a, caf::message_view&) -> caf::result<caf::message> {
    std::fprintf(stderr, "tact worker: refused a message from %s: not signed with this cluster's secret, "
                 "malformed, or too large\n", caf::to_string(a->current_sender()).c_str());
    return caf::sec::unexpected_message;
  });
  return {
      [self](describe_atom, const std::string& payload, const std::string& proof) {
        return Describe(self, payload, proof);
      },
      [self](WireRegisterPartition& reg) { return Register(self, reg); },
      [self](introduce_atom, const std::vector<std::string>& forget) {
        for (const std::string& task : forget) self->state.peers->Remove(task);
        return Introduce(self);
      },
      [self](hello_atom, const std::string& task, const caf::actor& actor, uint16_t link_port,
             const std::string& payload, const std::string& proof) {
        return Hello(self, task, actor, link_port, payload, proof);
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
  };
}

}  // namespace

caf::actor SpawnTaskActor(caf::actor_system& system, TaskActorConfig config) {
  return system.spawn(TaskBehavior, std::move(config));
}

}  // namespace tact

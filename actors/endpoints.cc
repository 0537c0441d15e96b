#include "actors/endpoints.h"

#include <atomic>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

#include "actors/inline_unit.h"
#include "actors/messages.h"
#include "graph/subgraph.h"

namespace tact {
namespace {

// "/job:J/replica:R/task:T" of the receiving device of a rendezvous key
// ("send;incarnation;recv;name").
std::string_view RecvTask(std::string_view key) {
  size_t a = key.find(';');
  if (a == std::string_view::npos) return {};
  a = key.find(';', a + 1);
  if (a == std::string_view::npos) return {};
  const size_t b = key.find(';', a + 1);
  std::string_view device = key.substr(a + 1, b == std::string_view::npos ? b : b - a - 1);
  return device.substr(0, device.find("/device:"));
}

// The rendezvous key of a _Send or _Recv between two devices; empty for
// any other node, and for the client's feeds and fetches.
StatusOr<std::string> EndpointKey(const NodeDef& n) {
  if (n.op != "_Send" && n.op != "_Recv") return std::string();
  bool client = false;
  if (GetAttr(n.attrs, "client_terminated", &client).ok() && client) return std::string();
  std::string name, send, recv;
  int64_t incarnation = 0;
  Status s = GetAttr(n.attrs, "tensor_name", &name);
  if (s.ok()) s = GetAttr(n.attrs, "send_device", &send);
  if (s.ok()) s = GetAttr(n.attrs, "recv_device", &recv);
  if (s.ok()) s = GetAttr(n.attrs, "send_device_incarnation", &incarnation);
  if (!s.ok()) return errors::InvalidArgument("node '", n.name, "' (op '", n.op, "'): ", s.message());
  return RendezvousKey(send, static_cast<uint64_t>(incarnation), recv, name);
}

StatusOr<Endpoints::Keys> KeysOf(const GraphDef& graph) {
  Endpoints::Keys keys;
  for (const NodeDef& n : graph.nodes) {
    TACT_ASSIGN_OR_RETURN(std::string key, EndpointKey(n));
    if (!key.empty()) (n.op == "_Send" ? keys.sends : keys.recvs).push_back(std::move(key));
  }
  return keys;
}

}  // namespace

// One key's endpoint, and how many registered partitions hold its node.
struct Endpoint {
  caf::actor actor;
  int partitions = 0;
};
using EndpointMap = std::unordered_map<std::string, Endpoint>;  // by key

struct Endpoints::Table {
  std::string local_task;  // empty: every Recv is here
  RemoteSend remote;
  mutable std::shared_mutex mu;
  EndpointMap sends;
  EndpointMap recvs;
  // Recv endpoints ended so far, for the Send endpoints that keep one.
  const std::shared_ptr<std::atomic<uint64_t>> recvs_ended = std::make_shared<std::atomic<uint64_t>>(0);

  caf::actor Find(const EndpointMap& in, const std::string& key) const {
    std::shared_lock<std::shared_mutex> lock(mu);
    auto it = in.find(key);
    return it == in.end() ? caf::actor() : it->second.actor;
  }
  // The endpoint of a key inside a loop is its nodes' one: the iteration
  // is matched by the Recv endpoint (actors/endpoint_actors.cc). A key of
  // the root frame, the usual one, is looked up as it is, not copied.
  caf::actor FindNodes(const EndpointMap& in, const std::string& key) const {
    const auto split = SplitFrameIter(key);
    return split.second.empty() ? Find(in, key) : Find(in, std::string(split.first));
  }
};

Endpoints::Endpoints() : table_(std::make_shared<Table>()) {}

Endpoints::Endpoints(std::string local_task, RemoteSend remote) : Endpoints() {
  table_->local_task = std::move(local_task);
  table_->remote = std::move(remote);
}

Endpoints::~Endpoints() = default;

// Under the table's lock throughout: registrations are rare, and spawning
// an idle (lazily initialised) actor runs none of its code.
StatusOr<Endpoints::Keys> Endpoints::Add(caf::event_based_actor* owner, const GraphDef& graph) {
  TACT_ASSIGN_OR_RETURN(Keys keys, KeysOf(graph));
  Table& t = *table_;
  std::unique_lock<std::shared_mutex> lock(t.mu);
  for (const std::string& key : keys.recvs) {
    Endpoint& e = t.recvs[key];
    if (e.partitions++ == 0) e.actor = SpawnRecvEndpoint(owner, key);
  }
  for (const std::string& key : keys.sends) {
    Endpoint& e = t.sends[key];
    if (e.partitions++ > 0) continue;
    SendRoute route;
    const std::string_view task = RecvTask(key);
    if (!t.local_task.empty() && task != t.local_task) {
      route.recv_task = std::string(task);
      route.remote = t.remote;
    } else {
      // Weak: the table holds the endpoints, not the other way round.
      route.find_recv = [table = std::weak_ptr<Table>(table_), key] {
        std::shared_ptr<Table> live = table.lock();
        return live ? live->Find(live->recvs, key) : caf::actor();
      };
      route.recvs_ended = t.recvs_ended;
    }
    e.actor = SpawnSendEndpoint(owner, key, std::move(route));
  }
  return keys;
}

void Endpoints::Remove(const Keys& keys) {
  std::vector<caf::actor> ended;
  {
    Table& t = *table_;
    std::unique_lock<std::shared_mutex> lock(t.mu);
    auto release = [&](EndpointMap& in, const std::string& key) {
      auto it = in.find(key);
      if (it == in.end() || --it->second.partitions > 0) return false;
      ended.push_back(std::move(it->second.actor));
      in.erase(it);
      return true;
    };
    for (const std::string& key : keys.sends) release(t.sends, key);
    for (const std::string& key : keys.recvs) {
      if (release(t.recvs, key)) t.recvs_ended->fetch_add(1, std::memory_order_release);
    }
  }
  for (const caf::actor& a : ended) caf::anon_send(a, endpoint_end_atom::value);
}

bool Endpoints::SendAsync(int64_t step_id, const std::string& key, const Tensor& tensor,
                          Rendezvous::SentCallback&& done) {
  caf::actor send = table_->FindNodes(table_->sends, key);
  if (!send) return false;
  auto call = std::make_shared<SendCall>(WireRendezvousTensor{step_id, key, tensor}, std::move(done));
  TellInline(send, std::move(call));
  return true;
}

bool Endpoints::RecvAsync(int64_t step_id, const std::string& key, Rendezvous::DoneCallback&& done) {
  caf::actor recv = table_->FindNodes(table_->recvs, key);
  if (!recv) return false;
  TellInline(recv, std::make_shared<RecvCall>(step_id, key, std::move(done)));
  return true;
}

bool Endpoints::Deliver(int64_t step_id, const std::string& key, const Tensor& tensor) {
  caf::actor recv = table_->FindNodes(table_->recvs, key);
  if (!recv) return false;
  TellInline(recv, WireRendezvousTensor{step_id, key, tensor});
  return true;
}

void Endpoints::Abort(int64_t step_id, const Status& status) {
  std::vector<caf::actor> recvs;
  {
    std::shared_lock<std::shared_mutex> lock(table_->mu);
    recvs.reserve(table_->recvs.size());
    for (const auto& [key, e] : table_->recvs) recvs.push_back(e.actor);
  }
  for (const caf::actor& r : recvs) TellInline(r, WireAbortStep{step_id, status});
}

size_t Endpoints::sends() const {
  std::shared_lock<std::shared_mutex> lock(table_->mu);
  return table_->sends.size();
}

size_t Endpoints::recvs() const {
  std::shared_lock<std::shared_mutex> lock(table_->mu);
  return table_->recvs.size();
}

}  // namespace tact

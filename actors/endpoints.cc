#include "actors/endpoints.h"

#include <mutex>
#include <shared_mutex>
#include <unordered_map>

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

}  // namespace

struct Endpoints::Table {
  std::string local_task;  // empty: every Recv is here
  RemoteSend remote;
  mutable std::shared_mutex mu;
  std::unordered_map<std::string, caf::actor> sends;  // by key
  std::unordered_map<std::string, caf::actor> recvs;

  caf::actor Find(const std::unordered_map<std::string, caf::actor>& in, const std::string& key) const {
    std::shared_lock<std::shared_mutex> lock(mu);
    auto it = in.find(key);
    return it == in.end() ? caf::actor() : it->second;
  }
  // The endpoint of a key inside a loop is its nodes' one: the iteration
  // is matched by the Recv endpoint (actors/endpoint_actors.cc). A key of
  // the root frame, the usual one, is looked up as it is, not copied.
  caf::actor FindNodes(const std::unordered_map<std::string, caf::actor>& in, const std::string& key) const {
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

Status Endpoints::Add(caf::event_based_actor* owner, const GraphDef& graph) {
  for (const NodeDef& n : graph.nodes) {
    TACT_ASSIGN_OR_RETURN(std::string key, EndpointKey(n));
    if (key.empty()) continue;
    const bool is_send = n.op == "_Send";
    {
      std::shared_lock<std::shared_mutex> lock(table_->mu);
      if ((is_send ? table_->sends : table_->recvs).count(key)) continue;
    }
    caf::actor actor;
    if (!is_send) {
      actor = SpawnRecvEndpoint(owner, key);
    } else {
      SendRoute route;
      const std::string_view task = RecvTask(key);
      if (!table_->local_task.empty() && task != table_->local_task) {
        route.recv_task = std::string(task);
        route.remote = table_->remote;
      } else {
        // Weak: the table holds the endpoints, not the other way round.
        route.find_recv = [table = std::weak_ptr<Table>(table_), key] {
          std::shared_ptr<Table> t = table.lock();
          return t ? t->Find(t->recvs, key) : caf::actor();
        };
      }
      actor = SpawnSendEndpoint(owner, key, std::move(route));
    }
    std::unique_lock<std::shared_mutex> lock(table_->mu);
    auto& in = is_send ? table_->sends : table_->recvs;
    if (!in.emplace(key, actor).second) caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
  }
  return Status::OK();
}

bool Endpoints::SendAsync(int64_t step_id, const std::string& key, const Tensor& tensor,
                          Rendezvous::SentCallback&& done) {
  caf::actor send = table_->FindNodes(table_->sends, key);
  if (!send) return false;
  auto call = std::make_shared<SendCall>(SendCall{WireRendezvousTensor{step_id, key, tensor}, std::move(done)});
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
    for (const auto& [key, actor] : table_->recvs) recvs.push_back(actor);
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

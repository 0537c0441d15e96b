#include "actors/endpoint_bench.h"

#include <chrono>
#include <future>
#include <vector>

#include "actors/actor_scheduler.h"
#include "actors/messages.h"
#include "actors/rendezvous_mgr.h"

namespace tact {
namespace {

constexpr const char* kSendDevice = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr const char* kRecvDevice = "/job:localhost/replica:0/task:0/device:CPU:1";

NodeDef PairNode(const std::string& op) {
  NodeDef n;
  n.name = op == "_Send" ? "x/send" : "x/recv";
  n.op = op;
  n.attrs["tensor_name"] = AttrValue::String("x:0");
  n.attrs["send_device"] = AttrValue::String(kSendDevice);
  n.attrs["recv_device"] = AttrValue::String(kRecvDevice);
  n.attrs["send_device_incarnation"] = AttrValue::Int(1);
  return n;
}

// One step's Send then Recv of `key`, as the kernels make them; false if
// either failed.
bool Pair(RendezvousMgr& mgr, int64_t step, const std::string& key, const Tensor& t) {
  std::shared_ptr<Rendezvous> r = mgr.Find(step, 1);
  bool ok = true;
  r->SendAsync(key, t, [&](const Status& s) { ok = ok && s.ok(); });
  r->RecvAsync(key, [&](const Status& s, const Tensor&) { ok = ok && s.ok(); });
  mgr.Release(step);
  return ok;
}

}  // namespace

StatusOr<SendRecvPairTimes> TimeSendRecvPairs(int steps) {
  caf::actor_system_config cfg;
  UseActorScheduler(cfg);
  caf::actor_system system(cfg);
  GraphDef graph;
  graph.nodes = {PairNode("_Send"), PairNode("_Recv")};
  RendezvousMgr with_endpoints, table_only;
  std::promise<Status> added;
  caf::actor owner = system.spawn([&](caf::event_based_actor* self) -> caf::behavior {
    added.set_value(with_endpoints.endpoints().Add(self, graph).status());
    return {[](int) {}};
  });
  TACT_RETURN_IF_ERROR(added.get_future().get());
  const std::string key = RendezvousKey(kSendDevice, 1, kRecvDevice, "x:0");
  const Tensor t = Tensor::Scalar(1.0f);
  const int round = std::max(1, steps / 10);
  SendRecvPairTimes times;
  int64_t step = 0;
  for (int r = -1; r < 10; ++r) {  // round -1 warms up
    for (RendezvousMgr* mgr : {&with_endpoints, &table_only}) {
      const auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < round; ++i) {
        if (!Pair(*mgr, ++step, key, t)) return errors::Internal("a Send/Recv pair failed in step ", step);
      }
      const double ns =
          std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / round;
      if (r >= 0) (mgr == &with_endpoints ? times.endpoint_ns : times.table_ns).push_back(ns);
    }
  }
  caf::anon_send_exit(owner, caf::exit_reason::user_shutdown);
  return times;
}

}  // namespace tact

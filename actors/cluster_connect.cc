#include "actors/cluster_connect.h"

#include <caf/io/all.hpp>
#include <caf/openssl/all.hpp>
#include <thread>

#include "actors/cluster_gate.h"
#include "actors/wire_auth.h"

namespace tact {
namespace {

// How long to wait between tries while a task is starting.
constexpr auto kRetry = std::chrono::milliseconds(50);
// A connected task answers describe at once.
constexpr auto kDescribeTimeout = std::chrono::seconds(10);

StatusOr<caf::actor> ConnectTask(caf::actor_system& system, const std::string& task,
                                 const TaskAddress& address,
                                 std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    caf::scoped_actor self{system};
    caf::actor actor;
    caf::error error;
    self->request(ConnectionManager(system), kDescribeTimeout, caf::connect_atom::value, address.host,
                  address.port)
        .receive(
            [&](const caf::node_id&, caf::strong_actor_ptr& ptr, const std::set<std::string>&) {
              actor = caf::actor_cast<caf::actor>(ptr);
            },
            [&](caf::error& e) { error = std::move(e); });
    if (actor) return actor;
    const Status why = FromCafError(error);
    // A process without the secret will not have it a moment later.
    const bool refused = why.code() == Code::kUnauthenticated;
    if (refused || std::chrono::steady_clock::now() >= deadline) {
      return Status(refused ? Code::kUnauthenticated : Code::kUnavailable,
                    "cannot reach task " + task + " at " + address.ToString() + ": " + why.message());
    }
    std::this_thread::sleep_for(kRetry);
  }
}

StatusOr<WireTaskInfo> Describe(caf::actor_system& system, const caf::actor& task_actor,
                                const std::string& task, const TaskAddress& address) {
  caf::scoped_actor self{system};
  StatusOr<WireTaskInfo> info = errors::Unavailable("task ", task, " did not answer");
  const std::string payload = NewClusterSecret();  // fresh random bytes to sign
  TACT_ASSIGN_OR_RETURN(std::string proof, SignWireMessage(system, kDescribeProof, payload));
  self->request(task_actor, kDescribeTimeout, WireDescribe{payload, proof})
      .receive([&](WireTaskInfo& i) { info = std::move(i); },
               [&](caf::error& e) {
                 info = FromCafError(e).WithPrefix("task " + task + " at " + address.ToString() + ": ");
               });
  if (info.ok() && info->task != task) {
    return errors::InvalidArgument("the process at ", address.ToString(), " is task ", info->task,
                                   ", but the cluster spec gives that address to task ", task);
  }
  return info;
}

}  // namespace

void UseNetworking(caf::actor_system_config& cfg, const ClusterTls& tls) {
  cfg.load<caf::io::middleman>();
  if (tls.enabled()) {
    cfg.load<caf::openssl::manager>();
    cfg.openssl_certificate = tls.certificate;
    cfg.openssl_key = tls.key;
    cfg.openssl_cafile = tls.cafile;
  }
  // A peer silent for connection-timeout is dropped, which fails its
  // steps (the master also pings on its own deadline).
  cfg.set("middleman.heartbeat-interval", caf::timespan{std::chrono::milliseconds(500)});
  cfg.set("middleman.connection-timeout", caf::timespan{std::chrono::seconds(5)});
  // Deserialise on the broker's thread: a pool of middleman workers adds
  // a hop to every message (../shared/notes/dependencies.md).
  cfg.set("middleman.workers", size_t{0});
}

caf::expected<uint16_t> PublishTaskOverTls(caf::actor_system&, const caf::actor& task,
                                           uint16_t port, const std::string& host) {
  return caf::openssl::publish(task, port, host.c_str(), /*reuse=*/true);
}

caf::actor ConnectionManager(caf::actor_system& system) {
  return system.has_openssl_manager() ? caf::actor_cast<caf::actor>(system.openssl_manager().actor_handle())
                                      : GatedConnector(system);
}

StatusOr<std::vector<DeviceEndpoint>> ConnectCluster(caf::actor_system& system,
                                                     const ClusterSpec& cluster,
                                                     std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::vector<DeviceEndpoint> endpoints;
  std::vector<std::pair<std::string, caf::actor>> actors;
  WireIntroduce introduce;
  for (const std::string& task : cluster.Tasks()) {
    TACT_ASSIGN_OR_RETURN(TaskAddress address, cluster.Address(task));
    TACT_ASSIGN_OR_RETURN(caf::actor actor, ConnectTask(system, task, address, deadline));
    TACT_ASSIGN_OR_RETURN(WireTaskInfo info, Describe(system, actor, task, address));
    for (const std::string& device : info.devices) {
      endpoints.push_back(DeviceEndpoint{device, actor, task, info.incarnation, address.host, info.link_port});
    }
    actors.emplace_back(task, actor);
    introduce.current[task] = info.incarnation;
  }
  // Every task connects to the tasks after it, so that each pair of tasks
  // has its one connection before any step needs it. A connection between
  // two tasks can fail as it opens (CAF once closed a fresh one with
  // connection_timeout, under a loaded test suite, well inside its 5 s):
  // a task that could not reach another is asked again until the deadline,
  // and only connects to the peers it does not know yet. Each learns the
  // incarnations found here, so that a peer restarted since it connected
  // (while no master watched) is connected to afresh.
  for (const auto& [task, actor] : actors) {
    for (;;) {
      caf::scoped_actor self{system};
      Status s;
      self->request(actor, kDescribeTimeout, introduce)
          .receive([](const WireIntroduced&) {},
                   [&](caf::error& e) { s = FromCafError(e).WithPrefix("introducing task " + task + ": "); });
      if (s.ok()) break;
      if (s.code() != Code::kUnavailable || std::chrono::steady_clock::now() >= deadline) return s;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  return endpoints;
}

}  // namespace tact

// How the processes of a cluster reach each other through CAF's middleman:
// the networking settings every tact process uses, and the master's
// connection to every task of a cluster spec.
//
// Include only from actors/*.cc: it pulls in CAF.
#pragma once

#include <caf/all.hpp>
#include <caf/io/middleman_actor.hpp>
#include <chrono>
#include <vector>

#include "actors/cluster_spec.h"
#include "actors/messages.h"

namespace tact {

// What a master signs to prove the cluster's secret to a task.
inline constexpr const char* kDescribeProof = "tact::describe";

// Loads the middleman with heartbeats on (CAF 0.17 ships them off, so a
// silent peer would only be noticed when TCP gives up, minutes later), and
// the openssl module when `tls` is enabled.
void UseNetworking(caf::actor_system_config& cfg, const ClusterTls& tls = {});

// Publishes a task actor at host:port over TLS (the system has it).
// Without TLS a worker listens through its gate instead (cluster_gate.h).
caf::expected<uint16_t> PublishTaskOverTls(caf::actor_system& system, const caf::actor& task,
                                           uint16_t port, const std::string& host);
// The actor to ask for one cluster connection: its connect_atom request
// answers with the peer's published actor. Over TLS, the openssl manager;
// else a new gated connector (cluster_gate.h), so call it once per request.
caf::actor ConnectionManager(caf::actor_system& system);

// Connects to every task of `cluster` (retrying until `timeout`, since
// tasks may still be starting) and asks each what it hosts. One endpoint
// per device, whose actor is its task's actor. Errors name the task and
// its address: unreachable, or answering as another task.
StatusOr<std::vector<DeviceEndpoint>> ConnectCluster(caf::actor_system& system,
                                                     const ClusterSpec& cluster,
                                                     std::chrono::milliseconds timeout);

}  // namespace tact

// How the processes of a cluster reach each other through CAF's middleman:
// the networking settings every tact process uses, and the master's
// connection to every task of a cluster spec.
//
// Include only from actors/*.cc: it pulls in CAF.
#pragma once

#include <caf/all.hpp>
#include <chrono>
#include <vector>

#include "actors/cluster_spec.h"
#include "actors/messages.h"

namespace tact {

// Loads the middleman with heartbeats on (CAF 0.17 ships them off, so a
// silent peer would only be noticed when TCP gives up, minutes later).
void UseNetworking(caf::actor_system_config& cfg);

// Connects to every task of `cluster` (retrying until `timeout`, since
// tasks may still be starting) and asks each what it hosts. One endpoint
// per device, whose actor is its task's actor. Errors name the task and
// its address: unreachable, or answering as another task.
StatusOr<std::vector<DeviceEndpoint>> ConnectCluster(caf::actor_system& system,
                                                     const ClusterSpec& cluster,
                                                     std::chrono::milliseconds timeout);

}  // namespace tact

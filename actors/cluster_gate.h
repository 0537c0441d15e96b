// The gate of a cluster's CAF connections: every connection between two
// processes of a cluster proves the cluster's secret, both ways, before
// CAF reads a byte of it.
//
// Why: CAF 0.17's BASP server checks nothing of a client before it
// dispatches the client's messages, and its system messages (exit, link,
// monitor, down) carry no signature, so a plain CAF node that could reach a
// worker's port ended the worker's actors with one exit message (tried:
// the worker exited to be restarted, and the cluster could not train).
// Signing tact's own messages (wire_auth.h) cannot cover CAF's. So the
// worker listens on its port itself: each connection runs a challenge and
// response over the raw socket (fresh nonces from both sides, HMAC proofs
// of the secret, one role label each way so no proof can be reflected),
// and only a connection that proved the secret is handed to CAF's BASP
// broker, as if its own acceptor had taken it. Connecting works the same
// way round. A recorded handshake cannot be replayed (the nonces change),
// and a process without the secret never gets a message to any actor.
//
// What it does not do: nothing is encrypted, and a connection that passed
// the gate can be hijacked by someone on the network path; that is what
// TLS (SessionOptions::cluster_tls) is for, which bypasses this gate since
// its certificates authenticate both ends.
//
// Include only from actors/*.cc: it pulls in CAF.
#pragma once

#include <caf/all.hpp>
#include <cstdint>
#include <memory>
#include <string>

#include "graph/status.h"

namespace tact {

class GateListener {
 public:
  // Listens on host:port (0: the system chooses) for connections to
  // `actor`, which each must prove `key` (wire_auth.h's ClusterKey). Errors
  // name the address.
  static StatusOr<std::unique_ptr<GateListener>> Start(caf::actor_system& system,
                                                       const caf::actor& actor,
                                                       const std::string& host, uint16_t port,
                                                       const std::string& key,
                                                       const std::string& who);
  ~GateListener();  // stops listening; connections handed to CAF stay

  uint16_t port() const { return port_; }

 private:
  struct State;
  GateListener() = default;
  std::shared_ptr<State> state_;
  uint16_t port_ = 0;
};

// A new actor that makes one gated connection: it answers one
// (connect_atom, host, port) with (node_id, strong_actor_ptr, set<string>),
// the actor published there, as CAF's middleman actor does, or with an
// error naming the address (Unauthenticated when the far side does not
// prove the secret), and ends. It runs on a thread of its own, so no
// caller waits on another's connection.
caf::actor GatedConnector(caf::actor_system& system);

}  // namespace tact

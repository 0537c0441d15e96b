// Cluster secrets: how the processes of a cluster know each other.
//
// CAF's own handshake authenticates nobody (its application identifier is
// sent in the clear by the server and never checked by it), so tact signs
// every wire message that crosses a process boundary with a key derived
// from the cluster's secret: AES-128-GMAC over the message's type name and
// its Cap'n Proto bytes, with a unique nonce. A message whose tag does not
// verify is refused before it is decoded, so a peer without the secret
// cannot register a graph, run or abort a step, or inject a tensor. A
// master also proves the secret when it first asks a task to describe
// itself, and a task refuses one that cannot (Unauthenticated).
//
// CAF's own system messages (exit, link, monitor, down) carry no
// signature; they are covered one level down: a connection must prove the
// secret before CAF reads a byte of it (actors/cluster_gate.h), so a
// process without the secret never reaches an actor, and a recorded
// handshake does not open a second connection.
//
// What this does not do: hide anything (without TLS the bytes, secret
// excepted, travel in the clear), or stop someone who can hijack a TCP
// connection on the network path from replaying or altering what travels
// on it. TLS does both. Keep such clusters off networks you do not trust.
//
// Include only from actors/*.cc: it pulls in CAF.
#pragma once

#include <caf/fwd.hpp>
#include <string>
#include <string_view>

#include "graph/status.h"

namespace tact {

// 32 random bytes, hex: a new cluster's secret.
std::string NewClusterSecret();

// The secret in a file (surrounding whitespace dropped); errors name it.
StatusOr<std::string> ReadClusterSecret(const std::string& path);

// The secret of this process's cluster connections: from `file` if not
// empty, else from $TACT_CLUSTER_SECRET. InvalidArgument when neither
// gives one, or it is shorter than 16 characters.
StatusOr<std::string> FindClusterSecret(const std::string& file);

// The actor system made from `cfg` signs and verifies with `secret`.
void UseClusterSecret(caf::actor_system_config& cfg, const std::string& secret);

// The signing key a secret gives (16 bytes), and signing with it directly,
// for connections that are not CAF's.
std::string ClusterKey(const std::string& secret);
std::string ClusterKeyOf(const caf::actor_system& system);  // empty without a secret
StatusOr<std::string> SignWithKey(const std::string& key, std::string_view type, std::string_view bytes);
Status VerifyWithKey(const std::string& key, std::string_view type, std::string_view bytes,
                     std::string_view trailer);

// The trailer (nonce and tag) that authenticates `bytes` of message type
// `type` in `system`'s cluster; FailedPrecondition without a secret.
StatusOr<std::string> SignWireMessage(const caf::actor_system& system, std::string_view type,
                                      std::string_view bytes);
// Unauthenticated when the trailer does not verify.
Status VerifyWireMessage(const caf::actor_system& system, std::string_view type,
                         std::string_view bytes, std::string_view trailer);

// Bytes in a trailer.
constexpr size_t kWireTrailerBytes = 12 + 16;

}  // namespace tact

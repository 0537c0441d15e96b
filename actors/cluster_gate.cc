#include "actors/cluster_gate.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <caf/io/all.hpp>
#include <caf/io/basp_broker.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "actors/cluster_spec.h"
#include "actors/socket_io.h"
#include "actors/wire_auth.h"
#include "actors/wire_caf.h"
#include "graph/logging.h"

namespace tact {
namespace {

constexpr char kMagic[8] = {'T', 'A', 'C', 'T', 'G', 'A', 'T', 'E'};
constexpr size_t kNonceBytes = 16;
constexpr char kAccepted = 'Y';
// A handshake is four short messages: a peer that takes longer is not one.
constexpr int kHandshakeMs = 5000;
// Handshakes running at once on a listener; more are closed unanswered, so
// that a flood of idle connections cannot hold a thread each.
constexpr int kMaxHandshakes = 32;

bool WriteProof(int fd, const StatusOr<std::string>& proof) {
  return proof.ok() && proof->size() == kWireTrailerBytes && WriteAll(fd, proof->data(), proof->size());
}

void SetTimeouts(int fd, int ms) {
  timeval tv{ms / 1000, (ms % 1000) * 1000};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

std::string Nonce() { return NewClusterSecret().substr(0, kNonceBytes); }

// The server's side: the client's nonce, this side's nonce and proof, the
// client's proof, and the verdict.
bool ServerHandshake(int fd, const std::string& key) {
  char magic[sizeof kMagic];
  std::string client_nonce(kNonceBytes, '\0');
  if (!ReadExactly(fd, magic, sizeof magic) || std::memcmp(magic, kMagic, sizeof kMagic) != 0 ||
      !ReadExactly(fd, client_nonce.data(), kNonceBytes)) {
    return false;
  }
  const std::string server_nonce = Nonce();
  std::string client_proof(kWireTrailerBytes, '\0');
  if (!WriteAll(fd, server_nonce.data(), kNonceBytes) ||
      !WriteProof(fd, SignWithKey(key, "tact::gate-server", client_nonce + server_nonce)) ||
      !ReadExactly(fd, client_proof.data(), client_proof.size()) ||
      !VerifyWithKey(key, "tact::gate-client", client_nonce + server_nonce, client_proof).ok()) {
    return false;
  }
  return WriteAll(fd, &kAccepted, 1);
}

Status ClientHandshake(int fd, const std::string& key, const std::string& where) {
  const std::string client_nonce = Nonce();
  std::string server_nonce(kNonceBytes, '\0'), server_proof(kWireTrailerBytes, '\0');
  if (!WriteAll(fd, kMagic, sizeof kMagic) || !WriteAll(fd, client_nonce.data(), kNonceBytes) ||
      !ReadExactly(fd, server_nonce.data(), kNonceBytes) ||
      !ReadExactly(fd, server_proof.data(), server_proof.size())) {
    return errors::Unavailable("the process at ", where, " broke off the cluster's handshake");
  }
  if (!VerifyWithKey(key, "tact::gate-server", client_nonce + server_nonce, server_proof).ok()) {
    return errors::Unauthenticated("the process at ", where, " did not prove the cluster's secret");
  }
  char verdict = 0;
  if (!WriteProof(fd, SignWithKey(key, "tact::gate-client", client_nonce + server_nonce)) ||
      !ReadExactly(fd, &verdict, 1) || verdict != kAccepted) {
    return errors::Unauthenticated("the process at ", where, " refused this process's proof of the "
                                   "cluster's secret");
  }
  return Status::OK();
}

StatusOr<int> Dial(const std::string& host, uint16_t port, const std::string& where) {
  StatusOr<int> fd = ConnectTcp(host, port, kHandshakeMs);
  if (!fd.ok()) return fd.status().WithPrefix("cannot connect to " + where + ": ");
  SetTimeouts(*fd, kHandshakeMs);
  return fd;
}

caf::actor Basp(caf::actor_system& system) {
  return system.middleman().named_broker<caf::io::basp_broker>(caf::atom("BASP"));
}

// One connection's client: the handshake on its own thread (a detached
// actor, gone once it has answered), then the socket goes to BASP, whose
// answer it passes on.
caf::behavior GateClient(caf::event_based_actor* self, std::string key) {
  return {
      [self, key](caf::connect_atom, const std::string& host, uint16_t port) {
        caf::response_promise rp = self->make_response_promise();
        const std::string where = TaskAddress{host, port}.ToString();
        StatusOr<int> fd = Dial(host, port, where);
        Status s = fd.status();
        if (s.ok()) {
          s = ClientHandshake(*fd, key, where);
          SetTimeouts(*fd, 0);
          if (!s.ok()) close(*fd);
        }
        if (!s.ok()) {
          rp.deliver(ToCafError(s));
          self->quit();
          return;
        }
        caf::io::scribe_ptr scribe = self->system().middleman().backend().new_scribe(*fd);
        self->request(Basp(self->system()), caf::infinite, caf::connect_atom::value, std::move(scribe), port)
            .then(
                [self, rp](caf::node_id& node, caf::strong_actor_ptr& actor,
                           std::set<std::string>& interface) mutable {
                  rp.deliver(std::move(node), std::move(actor), std::move(interface));
                  self->quit();
                },
                [self, rp](caf::error& e) mutable {
                  rp.deliver(std::move(e));
                  self->quit();
                });
      },
  };
}

}  // namespace

struct GateListener::State {
  caf::actor_system* system = nullptr;
  caf::strong_actor_ptr actor;
  std::string key, who;
  uint16_t port = 0;
  int listener = -1;
  std::thread acceptor;
  std::atomic<bool> closing{false};
  std::mutex mu;  // guards handshaking, whose fds the destructor cuts short
  std::set<int> handshaking;
  std::condition_variable idle;

  // Hands a connection that proved the secret to BASP, as its acceptor
  // would have; anything else is closed before CAF sees a byte of it.
  void Handshake(int fd) {
    SetTimeouts(fd, kHandshakeMs);
    const bool ok = !closing.load() && ServerHandshake(fd, key);
    SetTimeouts(fd, 0);
    std::lock_guard<std::mutex> lock(mu);
    handshaking.erase(fd);
    idle.notify_all();
    if (!ok || closing.load()) {
      LogWarning("tact worker ", who, ": refused a connection: no proof of the cluster's secret");
      close(fd);
    } else {
      caf::io::scribe_ptr scribe = system->middleman().backend().new_scribe(fd);
      caf::anon_send(Basp(*system), caf::publish_atom::value, std::move(scribe), port, actor,
                     std::set<std::string>());
    }
  }

  void AcceptLoop(const std::shared_ptr<State>& self) {
    for (;;) {
      const int fd = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
      if (closing.load()) {
        if (fd >= 0) close(fd);
        return;
      }
      if (fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        return;
      }
      int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      {
        std::lock_guard<std::mutex> lock(mu);
        if (handshaking.size() >= static_cast<size_t>(kMaxHandshakes)) {
          close(fd);
          continue;
        }
        handshaking.insert(fd);
      }
      // Detached: it ends within its timeout, or when the destructor cuts
      // its socket, which waits for it.
      std::thread([self, fd] { self->Handshake(fd); }).detach();
    }
  }
};

StatusOr<std::unique_ptr<GateListener>> GateListener::Start(caf::actor_system& system,
                                                            const caf::actor& actor,
                                                            const std::string& host, uint16_t port,
                                                            const std::string& key,
                                                            const std::string& who) {
  uint16_t bound = 0;
  StatusOr<int> listener = ListenTcp(host, port, true, &bound);
  if (!listener.ok()) {
    return listener.status().WithPrefix("cannot listen on " + TaskAddress{host, port}.ToString() + ": ");
  }
  auto state = std::make_shared<State>();
  state->system = &system;
  state->actor = caf::actor_cast<caf::strong_actor_ptr>(actor);
  state->key = key;
  state->who = who;
  state->listener = *listener;
  state->port = bound;
  state->acceptor = std::thread([s = state.get(), state] { s->AcceptLoop(state); });
  std::unique_ptr<GateListener> gate(new GateListener());
  gate->port_ = state->port;
  gate->state_ = std::move(state);
  return gate;
}

GateListener::~GateListener() {
  State& s = *state_;
  s.closing = true;
  shutdown(s.listener, SHUT_RDWR);
  s.acceptor.join();
  close(s.listener);
  // No handshake may reach the actor system once its owner destroys it.
  std::unique_lock<std::mutex> lock(s.mu);
  for (int fd : s.handshaking) shutdown(fd, SHUT_RDWR);
  s.idle.wait(lock, [&] { return s.handshaking.empty(); });
}

caf::actor GatedConnector(caf::actor_system& system) {
  return system.spawn<caf::detached>(GateClient, ClusterKeyOf(system));
}

}  // namespace tact

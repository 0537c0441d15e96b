// A cluster's secret against real worker processes: a connection that
// does not prove it is closed before CAF reads a byte (a master with
// another secret, a plain CAF node with its exit message, a recorded
// handshake sent again); past the gate, malformed and oversize messages
// are still refused; and the worker serves the right master afterwards
// every time.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <caf/io/all.hpp>
#include <chrono>
#include <set>
#include <thread>

#include "actors/actor_scheduler.h"
#include "actors/cluster_connect.h"
#include "actors/session.h"
#include "actors/wire_auth.h"
#include "apps/cluster/local_cluster.h"
#include "cluster_test_util.h"
#include "graph/ops/all_ops.h"

namespace tact {

// Stand-ins that travel under the name of a real message but carry bytes
// no tact process wrote: a length prefix and `n` bytes of junk, or a length
// prefix over the limit and nothing after it.
struct JunkRunStep {
  uint64_t n = 0;
  bool send_bytes = true;
};
caf::error inspect(caf::serializer& f, JunkRunStep& x) {
  if (auto err = f(x.n)) return err;
  if (!x.send_bytes) return caf::none;
  std::string junk(x.n, '\x5a');
  return f.apply_raw(junk.size(), junk.data());
}
caf::error inspect(caf::deserializer&, JunkRunStep&) {
  return caf::make_error(caf::sec::invalid_argument, "test type is send-only");
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, JunkRunStep&) {
  return f(caf::meta::type_name("JunkRunStep"));
}

namespace {

using namespace std::chrono_literals;

const std::string kTask0 = "/job:worker/replica:0/task:0";

std::unique_ptr<apps::LocalCluster> StartWorker() { return test_util::StartCluster({{"worker", 1}}); }

// The worker still serves its cluster: a fresh session with the right
// secret runs a step on it.
void ExpectServes(const apps::LocalCluster& cluster) {
  Scope s = Scope::NewRootScope();
  Add(s.WithOpName("y"), Placeholder(s.WithOpName("x"), DT_FLOAT), 1.0f);
  SessionOptions o;
  o.cluster = cluster.spec();
  o.cluster_secret = cluster.secret();
  auto session = Session::Create(o);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  ASSERT_TRUE((*session)->Extend(*s.ToGraphDef()).ok());
  auto y = (*session)->Run({{"x", Tensor::Scalar<float>(41)}}, {"y"}, {});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ((*y)[0].scalar<float>(), 42.0f);
}

// Waits until the worker's log shows `text` (it writes as it refuses).
bool LogShows(const apps::LocalCluster& cluster, const std::string& text) {
  for (int i = 0; i < 100; ++i) {
    if (cluster.Log(kTask0).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

TEST(SecurityTest, MasterWithoutTheSecretIsRefusedBeforeAnyGraph) {
  auto cluster = StartWorker();
  ASSERT_NE(cluster, nullptr);
  SessionOptions o;
  o.cluster = cluster->spec();
  o.cluster_secret = "not the secret of this cluster";
  auto session = Session::Create(o);
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().code(), Code::kUnauthenticated) << session.status().ToString();
  EXPECT_NE(session.status().message().find(kTask0), std::string::npos) << session.status().ToString();
  EXPECT_TRUE(LogShows(*cluster, "refused a connection")) << cluster->Log(kTask0);
  ExpectServes(*cluster);
}

// A plain CAF node (no secret, CAF's own remote_actor) reaches no actor of
// the worker: its connection is closed at the gate (actors/cluster_gate.h)
// before CAF reads a byte, so it cannot send the exit message that used to
// end the worker's actors. The worker serves on, as the same process.
TEST(SecurityTest, APlainCafNodeGetsNoActorToSendAnExitMessageTo) {
  auto cluster = StartWorker();
  ASSERT_NE(cluster, nullptr);
  ExpectServes(*cluster);
  const pid_t worker = cluster->Pid(kTask0);
  caf::actor_system_config cfg;
  cfg.load<caf::io::middleman>();
  caf::actor_system plain{cfg};
  const TaskAddress a = *cluster->spec().Address(kTask0);
  for (int i = 0; i < 3; ++i) {
    caf::expected<caf::actor> task = plain.middleman().remote_actor(a.host, a.port);
    ASSERT_FALSE(task) << "a node without the secret got the task actor";
    if (task) caf::anon_send_exit(*task, caf::exit_reason::kill);
  }
  EXPECT_TRUE(LogShows(*cluster, "refused a connection")) << cluster->Log(kTask0);
  ExpectServes(*cluster);
  EXPECT_EQ(cluster->Pid(kTask0), worker);
  EXPECT_EQ(kill(worker, 0), 0) << "the worker exited";
}

// The gate's handshake by hand: what a client sends when it proves the
// secret, and whether the server let it in.
class GateHandshake {
 public:
  explicit GateHandshake(const TaskAddress& a) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(a.port);
    inet_pton(AF_INET, a.host.c_str(), &addr.sin_addr);
    timeval tv{5, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~GateHandshake() { close(fd_); }
  bool connected() const { return connected_; }
  void Send(const std::string& bytes) { ASSERT_EQ(write(fd_, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size())); }
  std::string Read(size_t n) {
    std::string out(n, '\0');
    size_t got = 0;
    while (got < n) {
      const ssize_t r = read(fd_, out.data() + got, n - got);
      if (r <= 0) break;
      got += static_cast<size_t>(r);
    }
    out.resize(got);
    return out;
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
};

// A handshake recorded off a good connection and sent again on a new one
// is refused: the server's nonce is new, so the recorded proof is not one.
TEST(SecurityTest, ARecordedHandshakeSentAgainIsRefused) {
  auto cluster = StartWorker();
  ASSERT_NE(cluster, nullptr);
  ExpectServes(*cluster);  // it listens
  const TaskAddress a = *cluster->spec().Address(kTask0);
  const std::string key = ClusterKey(cluster->secret());
  const std::string client_nonce(16, 'n');
  std::string recorded = std::string("TACTGATE") + client_nonce;
  {
    GateHandshake good(a);
    ASSERT_TRUE(good.connected());
    good.Send(recorded);
    const std::string server = good.Read(16 + kWireTrailerBytes);
    ASSERT_EQ(server.size(), 16 + kWireTrailerBytes);
    const std::string server_nonce = server.substr(0, 16);
    ASSERT_TRUE(VerifyWithKey(key, "tact::gate-server", client_nonce + server_nonce, server.substr(16)).ok());
    StatusOr<std::string> proof = SignWithKey(key, "tact::gate-client", client_nonce + server_nonce);
    ASSERT_TRUE(proof.ok());
    good.Send(*proof);
    recorded += *proof;
    EXPECT_EQ(good.Read(1), "Y") << "the real handshake was refused";
  }
  GateHandshake replay(a);
  ASSERT_TRUE(replay.connected());
  replay.Send(recorded);
  replay.Read(16 + kWireTrailerBytes);
  EXPECT_EQ(replay.Read(1), "") << "a replayed handshake was let in";
  EXPECT_TRUE(LogShows(*cluster, "refused a connection")) << cluster->Log(kTask0);
  ExpectServes(*cluster);
}

// A process that passes the gate (it holds the secret) but speaks CAF to
// the worker directly, skipping the handshake a Session does.
class RogueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = StartWorker();
    ASSERT_NE(cluster_, nullptr);
  }
  // An actor system with the cluster's secret whose messages are, with
  // `junk`, only JunkRunStep under WireRunStep's name (unsigned bytes).
  void Connect(bool junk) {
    UseActorScheduler(cfg_);
    UseNetworking(cfg_);
    if (junk) {
      cfg_.add_message_type<JunkRunStep>("tact::WireRunStep");
    } else {
      AddRuntimeMessageTypes(cfg_);
    }
    UseClusterSecret(cfg_, cluster_->secret());
    system_ = std::make_unique<caf::actor_system>(cfg_);
    const TaskAddress a = *cluster_->spec().Address(kTask0);
    for (int i = 0; i < 100 && !task_; ++i) {
      caf::scoped_actor self{*system_};
      self->request(ConnectionManager(*system_), 5s, caf::connect_atom::value, a.host, a.port)
          .receive([&](const caf::node_id&, caf::strong_actor_ptr& p,
                       const std::set<std::string>&) { task_ = caf::actor_cast<caf::actor>(p); },
                   [&](caf::error&) { std::this_thread::sleep_for(50ms); });
    }
    ASSERT_TRUE(task_);
  }
  // Sends `msg` as a request and returns what came back.
  template <typename T>
  Status Ask(T msg) {
    caf::scoped_actor self{*system_};
    Status result = errors::Internal("no answer");
    self->request(task_, 5s, std::move(msg))
        .receive([&](caf::actor&) { result = Status::OK(); },
                 [&](caf::error& e) { result = FromCafError(e); });
    return result;
  }
  void TearDown() override {
    task_ = caf::actor();
    system_.reset();
  }

  std::unique_ptr<apps::LocalCluster> cluster_;
  caf::actor_system_config cfg_;
  std::unique_ptr<caf::actor_system> system_;
  caf::actor task_;
};

// Past the gate, every message is still checked: malformed ones and ones
// over the size limit are refused, and the worker serves on.
TEST_F(RogueTest, MalformedAndOversizeMessagesAreRefused) {
  Connect(/*junk=*/true);
  EXPECT_FALSE(Ask(JunkRunStep{4096, true}).ok());
  EXPECT_FALSE(Ask(JunkRunStep{kMaxWireMessageBytes + 1, false}).ok());
  EXPECT_TRUE(LogShows(*cluster_, "refused a message")) << cluster_->Log(kTask0);
  ExpectServes(*cluster_);
  // The worker counted both as refused (actors/wire_counts.h): its last
  // line, once stopped.
  ASSERT_TRUE(cluster_->Signal(kTask0, SIGTERM).ok());
  const std::string marker = " decoded {";
  for (int i = 0; i < 500 && cluster_->Log(kTask0).find(marker) == std::string::npos; ++i) {
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_NE(cluster_->Log(kTask0).find("\"refused\":2}"), std::string::npos) << cluster_->Log(kTask0);
}

// A master deregisters only what it registered (actors/task_actor.cc): a
// second master on the same cluster that names another's partition is
// refused, and the partition runs on; its own master's deregistration
// drops it, and a step sent to it then finds none. Real Cap'n Proto bytes
// both ways.
TEST_F(RogueTest, AMasterDeregistersOnlyWhatItRegistered) {
  Connect(/*junk=*/false);
  Scope s = Scope::NewRootScope();
  Const(s.WithOpName("c"), Tensor::Scalar<float>(7));
  WireRegisterPartition reg;
  reg.handle = "partition_rogue_1";
  reg.device = kTask0 + "/device:CPU:0";
  reg.graph = *s.ToGraphDef();
  caf::scoped_actor owner{*system_}, other{*system_};
  std::string registered;
  owner->request(task_, 5s, reg).receive([&](WirePartitionRegistered& r) { registered = r.handle; },
                                         [&](caf::error& e) { ADD_FAILURE() << FromCafError(e).ToString(); });
  ASSERT_EQ(registered, reg.handle);
  // A step through the task actor (no tensor link here): its StepDone.
  auto step = [&](int64_t id) {
    owner->send(task_, WireRunStep{id, reg.handle, {}, false, {}, 0, 0});
    Status status = errors::Internal("no StepDone for step ", id);
    owner->receive([&](WireStepDone& done) { status = done.status; },
                   caf::after(std::chrono::seconds(5)) >> [] {});
    return status;
  };
  ASSERT_TRUE(step(1).ok());

  other->send(task_, WireDeregisterPartition{reg.handle});
  EXPECT_TRUE(LogShows(*cluster_, "refused to deregister partition 'partition_rogue_1'"))
      << cluster_->Log(kTask0);
  EXPECT_TRUE(step(2).ok()) << "another master's DeregisterPartition dropped the partition";

  owner->send(task_, WireDeregisterPartition{reg.handle});
  const Status gone = step(3);
  EXPECT_EQ(gone.code(), Code::kNotFound) << gone.ToString();
  EXPECT_NE(gone.message().find("no partition 'partition_rogue_1'"), std::string::npos) << gone.ToString();
  ExpectServes(*cluster_);
}

}  // namespace
}  // namespace tact

namespace tact {
namespace {

// A CA and a certificate it signed, made with the openssl command.
struct Pki {
  std::string dir;
  ClusterTls tls;
};

Pki MakePki(const std::string& name) {
  char t[] = "/tmp/tact_pki_XXXXXX";
  Pki p;
  p.dir = mkdtemp(t);
  const std::string d = p.dir + "/";
  const std::string cmd =
      "cd " + d + " && openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 "
      "-subj /CN=" + name + "-ca && openssl req -newkey rsa:2048 -nodes -keyout node.key -out node.csr "
      "-subj /CN=" + name + "-node && openssl x509 -req -in node.csr -CA ca.pem -CAkey ca.key "
      "-CAcreateserial -out node.pem -days 2";
  EXPECT_EQ(std::system((cmd + " > /dev/null 2>&1").c_str()), 0) << cmd;
  p.tls = ClusterTls{d + "node.pem", d + "node.key", d + "ca.pem"};
  return p;
}

TEST(TlsTest, TasksOverTlsServeMastersOfTheirCaOnly) {
  const Pki ours = MakePki("ours");
  const Pki theirs = MakePki("theirs");
  apps::LocalClusterOptions o;
  o.binary = TACT_BINARY;
  o.jobs = {{"worker", 2}};
  o.tls = ours.tls;
  auto cluster = apps::LocalCluster::Start(o);
  ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
  // A tensor crossing from worker 1 to worker 0 and back to the client.
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  auto h = Mul(s.WithDevice("/job:worker/task:1").WithOpName("h"), x, 3.0f);
  Add(s.WithDevice("/job:worker/task:0").WithOpName("y"), h, 1.0f);
  SessionOptions so;
  so.cluster = (*cluster)->spec();
  so.cluster_secret = (*cluster)->secret();
  so.cluster_tls = ours.tls;
  auto session = Session::Create(so);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  ASSERT_TRUE((*session)->Extend(*s.ToGraphDef()).ok());
  auto y = (*session)->Run({{"x", Tensor::Scalar<float>(2)}}, {"y"}, {});
  ASSERT_TRUE(y.ok()) << y.status().ToString() << (*cluster)->Log(kTask0);
  EXPECT_EQ((*y)[0].scalar<float>(), 7.0f);
  // Plain TCP, and TLS with a certificate of another CA: no connection.
  for (const ClusterTls& tls : {ClusterTls{}, theirs.tls}) {
    SessionOptions bad = so;
    bad.cluster_tls = tls;
    bad.connect_timeout_ms = 500;
    auto refused = Session::Create(bad);
    EXPECT_FALSE(refused.ok()) << "connected with " << (tls.enabled() ? "another CA" : "plain TCP");
  }
  std::system(("rm -rf " + ours.dir + " " + theirs.dir).c_str());
}

}  // namespace
}  // namespace tact

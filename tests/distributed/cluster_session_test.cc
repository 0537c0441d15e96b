// Sessions on a cluster of real `tact worker` processes over loopback
// (paper 3.3): tensors cross processes straight between tasks, variables
// live on their task across Runs and sessions, a task killed in mid-step
// fails that step naming it, and bad clusters are clear errors.
#include <gtest/gtest.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "actors/session.h"
#include "apps/cluster/local_cluster.h"
#include "cluster_test_util.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {

using Clock = std::chrono::steady_clock;

std::string Task(const std::string& job, int i) { return TaskName(job, i); }
std::string Cpu0(const std::string& job, int i) { return Task(job, i) + "/device:CPU:0"; }

using test_util::Connect;
using test_util::StartCluster;

Tensor Iota(const TensorShape& shape, float scale) {
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = scale * static_cast<float>(i % 13 - 6);
  return t;
}

// Two layers on two worker processes (the model-parallel graph of
// tests/actors/multi_device_test.cc, pinned to tasks instead of devices).
GraphDef TwoLayersOnTwoTasks() {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  Scope l1 = s.WithDevice("/job:worker/task:1");
  auto h = Relu(l1.WithOpName("h"), MatMul(l1, x, Const(l1, Iota({8, 16}, 0.25f))));
  Scope l2 = s.WithDevice("/job:worker/task:0");
  Tanh(l2.WithOpName("y"), MatMul(l2, h, Const(l2, Iota({16, 4}, 0.125f))));
  return *s.ToGraphDef();
}

TEST(ClusterSessionTest, LayersOnTwoProcessesComputeWhatOneProcessComputes) {
  auto cluster = StartCluster({{"worker", 2}});
  ASSERT_NE(cluster, nullptr);
  auto remote = Connect(*cluster, TwoLayersOnTwoTasks());
  ASSERT_NE(remote, nullptr);
  SessionOptions soft;
  soft.allow_soft_placement = true;  // the pins name tasks this process is not
  auto local = Session::Create(soft);
  ASSERT_TRUE(local.ok());
  ASSERT_TRUE((*local)->Extend(TwoLayersOnTwoTasks()).ok());
  for (int step = 0; step < 3; ++step) {
    const Tensor x = Iota({5, 8}, 0.5f + step);
    RunMetadata md;
    auto got = remote->Run({{"x", x}}, {"y", "h"}, {}, &md);
    auto want = (*local)->Run({{"x", x}}, {"y", "h"}, {});
    ASSERT_TRUE(got.ok()) << got.status().ToString() << "\n" << cluster->Log(Task("worker", 1));
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    ASSERT_EQ(got->size(), 2u);
    EXPECT_TRUE((*got)[0].BitwiseEqual((*want)[0]));
    EXPECT_TRUE((*got)[1].BitwiseEqual((*want)[1]));
    std::set<std::string> devices;
    for (const NodeExecStats& n : md.step_stats.nodes()) {
      devices.insert(n.device);
      if (n.node_name == "h") {
        EXPECT_EQ(n.device, Cpu0("worker", 1));
      }
      if (n.node_name == "y") {
        EXPECT_EQ(n.device, Cpu0("worker", 0));
      }
    }
    EXPECT_EQ(devices, (std::set<std::string>{Cpu0("worker", 0), Cpu0("worker", 1)}));
  }
  EXPECT_TRUE(remote->Close().ok());
}

// A counter on the ps, incremented by a value computed on the worker: the
// variable lives in the ps process across Runs, and across sessions.
GraphDef CounterOnPs() {
  Scope s = Scope::NewRootScope();
  Scope ps = s.WithDevice("/job:ps/task:0");
  auto v = Variable(ps.WithOpName("counter"), PartialTensorShape({2}), DT_FLOAT);
  Assign(ps.WithOpName("init"), v, Const(ps, Tensor::FromVector<float>({0, 0})));
  Scope w = s.WithDevice("/job:worker/task:0");
  auto one = Add(w.WithOpName("one"), Const(w, Tensor::FromVector<float>({0.5f, 1.5f})), 0.5f);
  AssignAdd(s.WithOpName("increment"), v, one);
  Identity(ps.WithOpName("read"), v);
  return *s.ToGraphDef();
}

TEST(ClusterSessionTest, VariablesLiveOnTheirTaskAcrossRunsAndSessions) {
  auto cluster = StartCluster({{"ps", 1}, {"worker", 1}});
  ASSERT_NE(cluster, nullptr);
  {
    auto session = Connect(*cluster, CounterOnPs());
    ASSERT_NE(session, nullptr);
    ASSERT_TRUE(session->Run({}, {}, {"init"}).ok());
    for (int i = 0; i < 50; ++i) {
      auto r = session->Run({}, {}, {"increment"});
      ASSERT_TRUE(r.ok()) << r.status().ToString();
    }
    RunMetadata md;
    auto read = session->Run({}, {"read"}, {}, &md);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    EXPECT_EQ((*read)[0].data<float>()[0], 50.0f);
    EXPECT_EQ((*read)[0].data<float>()[1], 100.0f);
    for (const NodeExecStats& n : md.step_stats.nodes()) {
      if (n.node_name == "read") {
        EXPECT_EQ(n.device, Cpu0("ps", 0));
      }
    }
  }
  // A new client sees what the first one left on the ps.
  auto again = Connect(*cluster, CounterOnPs());
  ASSERT_NE(again, nullptr);
  auto read = again->Run({}, {"read"}, {});
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ((*read)[0].data<float>()[1], 100.0f);
}

// Worker 1 multiplies 1024x1024 matrices for seconds; worker 0 waits for
// its result. Killing worker 1 mid-step fails the step within the health
// deadline, naming the task, and the session still runs what needs only
// worker 0.
GraphDef LongStepOnWorker1() {
  Scope s = Scope::NewRootScope();
  Scope w1 = s.WithDevice("/job:worker/task:1");
  auto m = Const(w1, Iota({1024, 1024}, 1e-3f));
  Output x = m;
  for (int i = 0; i < 60; ++i) x = Tanh(w1, MatMul(w1, x, m));
  Scope w0 = s.WithDevice("/job:worker/task:0");
  Sum(w0.WithOpName("total"), x, Const(w0, Tensor::FromVector<int32_t>({0, 1})));
  Const(w0.WithOpName("alone"), Tensor::Scalar<float>(3));
  return *s.ToGraphDef();
}

TEST(ClusterSessionTest, KilledTaskFailsTheStepWithinTheDeadlineNamingIt) {
  auto cluster = StartCluster({{"worker", 2}});
  ASSERT_NE(cluster, nullptr);
  SessionOptions o;
  o.health_interval_ms = 200;
  o.health_timeout_ms = 1000;
  auto session = Connect(*cluster, LongStepOnWorker1(), o);
  ASSERT_NE(session, nullptr);
  Clock::time_point killed;
  std::thread killer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    killed = Clock::now();
    EXPECT_TRUE(cluster->Signal(Task("worker", 1), SIGKILL).ok());
  });
  auto r = session->Run({}, {"total"}, {});
  const Clock::time_point returned = Clock::now();
  killer.join();
  ASSERT_FALSE(r.ok()) << "the step finished before the kill: make it longer";
  EXPECT_EQ(r.status().code(), Code::kUnavailable) << r.status().ToString();
  EXPECT_NE(r.status().message().find(Task("worker", 1)), std::string::npos) << r.status().ToString();
  EXPECT_LT(returned - killed, std::chrono::milliseconds(o.health_timeout_ms + 500));
  // The session is still usable for what worker 0 alone can run...
  auto alone = session->Run({}, {"alone"}, {});
  ASSERT_TRUE(alone.ok()) << alone.status().ToString();
  EXPECT_EQ((*alone)[0].data<float>()[0], 3.0f);
  // ...and what needs worker 1 fails at once, naming it.
  auto again = session->Run({}, {"total"}, {});
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find(Task("worker", 1)), std::string::npos);
}

// Paper 5.5 across processes: a float32 crossing tasks keeps only its
// upper 16 bits (truncating twice, there and back, is truncating once).
TEST(ClusterSessionTest, LossyTransferKeepsTheUpperSixteenBitsAcrossProcesses) {
  auto cluster = StartCluster({{"worker", 2}});
  ASSERT_NE(cluster, nullptr);
  Scope s = Scope::NewRootScope();
  // The feed enters on worker 0 (where its node is asked to run) and
  // crosses to worker 1.
  auto x = Placeholder(s.WithDevice("/job:worker/task:0").WithOpName("x"), DT_FLOAT);
  Identity(s.WithDevice("/job:worker/task:1").WithOpName("moved"), x);
  SessionOptions o;
  o.lossy_float_transfer = true;
  auto session = Connect(*cluster, *s.ToGraphDef(), o);
  ASSERT_NE(session, nullptr);
  const std::vector<float> values = {1.0f / 3.0f, -123.456f, 1e-40f, 3.0e38f};
  RunMetadata md;
  auto out = session->Run({{"x", Tensor::FromVector<float>(values)}}, {"moved"}, {}, &md);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  for (size_t i = 0; i < values.size(); ++i) {
    uint32_t in_bits, out_bits;
    std::memcpy(&in_bits, &values[i], 4);
    std::memcpy(&out_bits, &(*out)[0].data<float>()[i], 4);
    EXPECT_EQ(out_bits, in_bits & 0xffff0000u) << values[i];
  }
  bool moved_on_worker1 = false;
  for (const NodeExecStats& n : md.step_stats.nodes()) {
    moved_on_worker1 = moved_on_worker1 || (n.node_name == "moved" && n.device == Cpu0("worker", 1));
  }
  EXPECT_TRUE(moved_on_worker1);
}

TEST(ClusterSessionTest, UnreachableTaskFailsCreateNamingIt) {
  auto port = apps::FreeLoopbackPort();
  ASSERT_TRUE(port.ok());
  SessionOptions o;
  o.cluster = ClusterSpec();
  o.cluster->jobs["worker"] = {TaskAddress{"127.0.0.1", *port}};
  o.connect_timeout_ms = 300;
  o.cluster_secret = "sixteen or more characters";
  auto session = Session::Create(o);
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().code(), Code::kUnavailable);
  EXPECT_NE(session.status().message().find("/job:worker/replica:0/task:0 at 127.0.0.1:" +
                                            std::to_string(*port)),
            std::string::npos)
      << session.status().ToString();
}

// `tact worker` with a bad spec, a port in use or a bad TLS file exits 1
// with the reason.
class TactWorkerTest : public ::testing::Test {
 protected:
  int RunWorker(const std::string& args, std::string* err) {
    const std::string errfile = dir_ + "/err.txt";
    const int rc = std::system(("TACT_CLUSTER_SECRET=0123456789abcdef " + std::string(TACT_BINARY) +
                                " worker " + args + " > /dev/null 2> " + errfile).c_str());
    std::ifstream f(errfile);
    err->assign(std::istreambuf_iterator<char>(f), {});
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  }
  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  void SetUp() override {
    char t[] = "/tmp/tact_worker_test_XXXXXX";
    dir_ = mkdtemp(t);
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  std::string dir_;
};

TEST_F(TactWorkerTest, BadSpecPortInUseOrTlsFileExitWithTheReason) {
  std::string err;
  const std::string bad = Write("bad.json", "{\"cluster\": {\"worker\": [\"127.0.0.1\"]}}");
  EXPECT_EQ(RunWorker("--cluster " + bad + " --job worker --task 0", &err), 1);
  EXPECT_NE(err.find(bad + ": cluster.worker[0]"), std::string::npos) << err;

  // A port some other socket listens on.
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(listen(fd, 1), 0);
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const int port = ntohs(addr.sin_port);
  const std::string busy =
      Write("busy.json", "{\"cluster\": {\"worker\": [\"127.0.0.1:" + std::to_string(port) + "\"]}}");
  EXPECT_EQ(RunWorker("--cluster " + busy + " --job worker --task 0", &err), 1);
  close(fd);
  EXPECT_NE(err.find("task /job:worker/replica:0/task:0 cannot listen on 127.0.0.1:" + std::to_string(port)),
            std::string::npos)
      << err;

  EXPECT_EQ(RunWorker("--cluster " + busy + " --job ps --task 0", &err), 1);
  EXPECT_NE(err.find("task /job:ps/replica:0/task:0 is not in the cluster"), std::string::npos) << err;

  // A file that is not a certificate: refused before listening (it used to
  // listen and refuse every peer at the handshake; actors/tls_files.h).
  const std::string garbage = Write("garbage.pem", "not PEM\n");
  EXPECT_EQ(RunWorker("--cluster " + busy + " --job worker --task 0 --tls-cert " + garbage + " --tls-key " +
                          garbage + " --tls-ca " + garbage, &err), 1);
  EXPECT_NE(err.find("TLS certificate " + garbage + ": no PEM certificate in it"), std::string::npos) << err;
}

}  // namespace
}  // namespace tact

namespace tact {
namespace {

// A worker killed and started again at its address is attached anew by the
// same session: Runs that need it fail while it is gone, then work again,
// with tensors crossing to the new process; its variables start
// uninitialised (restoring them is the checkpoints' job).
TEST(ClusterSessionTest, RestartedTaskIsAttachedAgain) {
  auto cluster = StartCluster({{"worker", 2}});
  ASSERT_NE(cluster, nullptr);
  Scope s = Scope::NewRootScope();
  Scope w1 = s.WithDevice("/job:worker/task:1");
  auto v = Variable(w1.WithOpName("v"), PartialTensorShape({}), DT_FLOAT);
  Assign(w1.WithOpName("init"), v, Const(w1, Tensor::Scalar<float>(10)));
  auto x = Placeholder(s.WithDevice("/job:worker/task:0").WithOpName("x"), DT_FLOAT);
  Add(s.WithDevice("/job:worker/task:0").WithOpName("y"), Mul(w1, x, v), 1.0f);
  SessionOptions o;
  o.health_interval_ms = 100;
  o.health_timeout_ms = 1000;
  auto session = Connect(*cluster, *s.ToGraphDef(), o);
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(session->Run({}, {}, {"init"}).ok());
  auto y = session->Run({{"x", Tensor::Scalar<float>(2)}}, {"y"}, {});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ((*y)[0].scalar<float>(), 21.0f);

  ASSERT_TRUE(cluster->Restart(Task("worker", 1)).ok());
  // Until the new process is attached, Runs fail naming the task; after,
  // the variable is a new, uninitialised one.
  Status last;
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (Clock::now() < deadline) {
    last = session->Run({}, {}, {"init"}).status();
    if (last.ok()) break;
    EXPECT_NE(last.message().find(Task("worker", 1)), std::string::npos) << last.ToString();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(last.ok()) << last.ToString() << "\n" << cluster->Log(Task("worker", 1));
  y = session->Run({{"x", Tensor::Scalar<float>(3)}}, {"y"}, {});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ((*y)[0].scalar<float>(), 31.0f);
}

}  // namespace
}  // namespace tact

namespace tact {
namespace {

// Worker 1 holds a variable that worker 0's `y` reads: a Run of `y`
// needs both tasks.
GraphDef VariableOnWorker1() {
  Scope s = Scope::NewRootScope();
  Scope w1 = s.WithDevice("/job:worker/task:1");
  auto v = Variable(w1.WithOpName("v"), PartialTensorShape({}), DT_FLOAT);
  Assign(w1.WithOpName("init"), v, Const(w1, Tensor::Scalar<float>(10)));
  Add(s.WithDevice("/job:worker/task:0").WithOpName("y"), v, 1.0f);
  return *s.ToGraphDef();
}

SessionOptions Supervised(apps::LocalCluster* cluster, int max_restarts,
                          std::chrono::milliseconds hung_after) {
  SessionOptions o;
  o.health_interval_ms = 100;  // the default deadline (2 s): CI runs tests side by side
  o.supervision.max_restarts = max_restarts;
  o.supervision.task_wait_ms = 20000;
  o.supervision.restart_task = [cluster, hung_after](const std::string& task,
                                                     std::chrono::milliseconds lost_for) {
    return cluster->BringBack(task, lost_for, hung_after);
  };
  return o;
}

// The step that was running when the task died fails; the next Run waits
// for the supervisor to start the task again and the master to attach it,
// and works, with no retry loop in the client.
TEST(SupervisedSessionTest, AKilledTaskIsStartedAgainAndTheNextRunWaitsForIt) {
  auto cluster = StartCluster({{"worker", 2}});
  ASSERT_NE(cluster, nullptr);
  auto session = Connect(*cluster, VariableOnWorker1(), Supervised(cluster.get(), -1, std::chrono::seconds(10)));
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(session->Run({}, {}, {"init"}).ok());
  ASSERT_TRUE(cluster->Signal(Task("worker", 1), SIGKILL).ok());
  // Wait until the session has noticed (a Run may still reach the dying
  // process first and fail, naming it).
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto start = Clock::now();
  Status s = session->Run({}, {}, {"init"}).status();
  if (!s.ok()) {
    EXPECT_NE(s.message().find(Task("worker", 1)), std::string::npos) << s.ToString();
    s = session->Run({}, {}, {"init"}).status();
  }
  ASSERT_TRUE(s.ok()) << s.ToString() << "\n" << cluster->Log(Task("worker", 1));
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(15));
  auto y = session->Run({}, {"y"}, {});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ((*y)[0].scalar<float>(), 11.0f);
}

// A cluster outlives its clients: a task restarted while no session runs
// (a machine rebooted between two training runs) is introduced to its
// peers by the next session's master. Worker 0 still holds the old
// process's entry; it must connect to the new one, or worker 1's Send to
// it is refused at registration.
TEST(ClusterSessionTest, ATaskRestartedBetweenSessionsWorksWithTheNextSession) {
  auto cluster = StartCluster({{"worker", 2}});
  ASSERT_NE(cluster, nullptr);
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    auto session = Connect(*cluster, VariableOnWorker1());
    ASSERT_NE(session, nullptr);
    ASSERT_TRUE(session->Run({}, {}, {"init"}).ok());
    auto y = session->Run({}, {"y"}, {});
    ASSERT_TRUE(y.ok()) << y.status().ToString() << "\n" << cluster->Log(Task("worker", 1));
    EXPECT_EQ((*y)[0].scalar<float>(), 11.0f);
    session.reset();
    ASSERT_TRUE(cluster->Restart(Task("worker", 1)).ok());
  }
}

// A task that stops answering but does not exit (SIGSTOP) is lost at the
// health deadline, and taken for hung after `hung_after`: its process is
// killed and started again.
TEST(SupervisedSessionTest, AHungTaskIsKilledAndStartedAgain) {
  auto cluster = StartCluster({{"worker", 2}});
  ASSERT_NE(cluster, nullptr);
  auto session = Connect(*cluster, VariableOnWorker1(), Supervised(cluster.get(), -1, std::chrono::seconds(1)));
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(session->Run({}, {}, {"init"}).ok());
  ASSERT_TRUE(session->Run({}, {"y"}, {}).ok());  // registered on both tasks
  ASSERT_TRUE(cluster->Signal(Task("worker", 1), SIGSTOP).ok());
  // kill() returns before a busy machine has stopped every thread: on one,
  // the next step had finished before the process stopped.
  ASSERT_TRUE(test_util::StoppedWithin(cluster->Pid(Task("worker", 1)), std::chrono::seconds(5)));
  // The step starts on the stopped process: it fails at the health deadline.
  const auto start = Clock::now();
  Status s = session->Run({}, {"y"}, {}).status();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kUnavailable) << s.ToString();
  const auto failed = Clock::now();
  // The new process's variable is uninitialised until init runs again.
  s = session->Run({}, {}, {"init"}).status();
  ASSERT_TRUE(s.ok()) << s.ToString() << "\n" << cluster->Log(Task("worker", 1));
  // The 2 s deadline, 1 s more to be taken for hung, the new process's
  // start; not also the reattach timeout (5 s) of a connection to the
  // stopped process.
  const auto ms = [](Clock::duration d) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  };
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(6))
      << "the step failed after " << ms(failed - start) << " ms, init ran " << ms(Clock::now() - failed)
      << " ms later; worker 1 printed:\n" << cluster->Log(Task("worker", 1));
  auto y = session->Run({}, {"y"}, {});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ((*y)[0].scalar<float>(), 11.0f);
}

TEST(SupervisedSessionTest, BadSupervisionOptionsAreRefusedNamingTheField) {
  SessionOptions o;
  o.cluster = ClusterSpec();
  o.cluster->jobs["worker"].push_back(TaskAddress{"127.0.0.1", 1});
  o.cluster_secret = "0123456789abcdef0123";
  o.supervision.task_wait_ms = -1;
  auto s = Session::Create(o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument);
  EXPECT_NE(s.status().message().find("supervision: task_wait_ms"), std::string::npos) << s.status().ToString();
  o.supervision.task_wait_ms = 0;
  o.supervision.max_restarts = 3;
  o.supervision.restart_window_secs = 0;
  s = Session::Create(o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("restart_window_secs"), std::string::npos) << s.status().ToString();
}

// Past the restart limit the supervisor gives up: this Run and every later
// one fail with Aborted, naming the limit and the last failure, at once.
TEST(SupervisedSessionTest, PastTheRestartLimitEveryRunFailsWithTheReason) {
  auto cluster = StartCluster({{"worker", 2}});
  ASSERT_NE(cluster, nullptr);
  auto session = Connect(*cluster, VariableOnWorker1(), Supervised(cluster.get(), 0, std::chrono::seconds(10)));
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(session->Run({}, {}, {"init"}).ok());
  ASSERT_TRUE(cluster->Signal(Task("worker", 1), SIGKILL).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  for (int i = 0; i < 3; ++i) {
    const auto start = Clock::now();
    Status s = session->Run({}, {"y"}, {}).status();
    ASSERT_FALSE(s.ok());
    if (i == 0 && s.code() == Code::kUnavailable) continue;  // reached the dying process first
    EXPECT_EQ(s.code(), Code::kAborted) << s.ToString();
    EXPECT_NE(s.message().find("1 restarts within 60 s (the limit is 0)"), std::string::npos) << s.ToString();
    EXPECT_NE(s.message().find(Task("worker", 1)), std::string::npos) << s.ToString();
    EXPECT_LT(Clock::now() - start, std::chrono::seconds(1));
  }
  EXPECT_TRUE(session->Close().ok());
}

}  // namespace
}  // namespace tact

namespace tact {
namespace {

bool Listening(uint16_t port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  return ok;
}

// A process that started a local cluster and died before its destructor
// ran (a killed trainer) leaves no task behind: each sees its parent gone
// and exits.
TEST(LocalClusterTest, TasksEndWithTheProcessThatStartedThem) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(fds[0]);
    apps::LocalClusterOptions o;
    o.binary = TACT_BINARY;
    o.jobs = {{"worker", 2}};
    auto cluster = apps::LocalCluster::Start(o);
    uint16_t ports[2] = {0, 0};
    char dir[256] = {};
    if (cluster.ok()) {
      for (int i = 0; i < 2; ++i) ports[i] = (*cluster)->spec().Address(Task("worker", i))->port;
      std::snprintf(dir, sizeof dir, "%s", (*cluster)->dir().c_str());
    }
    if (write(fds[1], ports, sizeof ports) != sizeof ports || write(fds[1], dir, sizeof dir) != sizeof dir) {
      _exit(2);
    }
    // Until both listen, then gone without a destructor.
    for (int i = 0; i < 200 && !(Listening(ports[0]) && Listening(ports[1])); ++i) usleep(20000);
    _exit(0);
  }
  close(fds[1]);
  uint16_t ports[2] = {0, 0};
  char dir[256] = {};
  ASSERT_EQ(read(fds[0], ports, sizeof ports), static_cast<ssize_t>(sizeof ports));
  ASSERT_EQ(read(fds[0], dir, sizeof dir), static_cast<ssize_t>(sizeof dir));
  close(fds[0]);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_NE(ports[0], 0);
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  while (Clock::now() < deadline && (Listening(ports[0]) || Listening(ports[1]))) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_FALSE(Listening(ports[0]));
  EXPECT_FALSE(Listening(ports[1]));
  if (dir[0] == '/') std::filesystem::remove_all(dir);  // the child left it
}

// Another process listens on the first port drawn (as a second test
// process starting a cluster at the same moment may): that task cannot
// listen, and the cluster starts again on new ports and serves a step.
// A port taken in every attempt is an error saying so.
TEST(LocalClusterTest, APortTakenBeforeItsTaskListensHasTheClusterStartAgain) {
  const int taken = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(taken, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(taken, 1), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(getsockname(taken, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const uint16_t port = ntohs(addr.sin_port);

  apps::LocalClusterOptions o;
  o.binary = TACT_BINARY;
  o.jobs = {{"ps", 1}, {"worker", 1}};
  int picks = 0;
  o.pick_port = [&]() -> StatusOr<uint16_t> { return ++picks == 1 ? port : apps::FreeLoopbackPort(); };
  auto cluster = apps::LocalCluster::Start(o);
  ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
  EXPECT_EQ(picks, 4);  // two tasks, twice
  for (const auto& [job, tasks] : (*cluster)->spec().jobs) {
    for (const TaskAddress& a : tasks) EXPECT_NE(a.port, port) << job;
  }
  Scope sc = Scope::NewRootScope();
  Add(sc.WithDevice("/job:worker/task:0").WithOpName("y"),
      Const(sc.WithDevice("/job:ps/task:0"), Tensor::Scalar<float>(2)), 1.0f);
  auto session = test_util::Connect(**cluster, *sc.ToGraphDef());
  ASSERT_NE(session, nullptr);
  auto y = session->Run({}, {"y:0"}, {});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ((*y)[0].scalar<float>(), 3.0f);

  picks = 0;
  o.pick_port = [&]() -> StatusOr<uint16_t> { return ++picks % 2 == 1 ? port : apps::FreeLoopbackPort(); };
  auto refused = apps::LocalCluster::Start(o);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("Address already in use"), std::string::npos)
      << refused.status().ToString();
  EXPECT_EQ(picks, 6);  // three attempts
  close(taken);
}

}  // namespace
}  // namespace tact

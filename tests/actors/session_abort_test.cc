// Steps that would wait forever end: through the operation timeout, or
// through Close; either way the client gets a Status that says why.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "actors/session.h"
#include "graph/ops/all_ops.h"
#include "tests/actors/executor_test_util.h"

namespace tact {
namespace {

using namespace std::chrono_literals;

constexpr const char* kDevice = "/job:localhost/replica:0/task:0/device:CPU:0";

// "stuck" waits for a tensor from a device that never sends it; "x2"
// doubles a fed x and runs at once.
GraphDef StuckAndQuick() {
  Scope s = Scope::NewRootScope();
  Mul(s.WithOpName("x2"), Placeholder(s.WithOpName("x"), DT_FLOAT), 2.0f);
  GraphDef def = *s.ToGraphDef();
  NodeDef r = test::RecvNobodySends("never", kDevice);
  NodeDef neg;
  neg.name = "stuck";
  neg.op = "Neg";
  neg.inputs = {"never"};
  neg.attrs["T"] = AttrValue::Type(DT_FLOAT);
  def.nodes.push_back(r);
  def.nodes.push_back(neg);
  return def;
}

void ExpectQuickRunWorks(Session* session) {
  auto out = session->Run({{"x", Tensor::FromVector<float>({1.5f})}}, {"x2"}, {});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].data<float>()[0], 3.0f);
}

TEST(SessionAbortTest, OperationTimeoutEndsAWaitingStep) {
  SessionOptions options;
  options.operation_timeout_ms = 100;
  auto session = Session::Create(options);
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Extend(StuckAndQuick()).ok());
  for (int i = 0; i < 2; ++i) {
    const auto start = std::chrono::steady_clock::now();
    auto out = (*session)->Run({}, {"stuck"}, {});
    const auto took = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(out.status().code(), Code::kDeadlineExceeded) << out.status().ToString();
    EXPECT_NE(out.status().message().find("operation timeout of 100 ms"), std::string::npos)
        << out.status().ToString();
    EXPECT_GE(took, 100ms);
    EXPECT_LT(took, 5s);
    ExpectQuickRunWorks(session->get());
  }
}

// RunOptions::timeout_ms, TensorFlow's timeout_in_ms: a Run's own limit
// replaces the session's, kNoTimeout lifts it for that Run only, and a
// value below kNoTimeout is refused naming the field.
TEST(SessionAbortTest, ARunsOwnTimeoutReplacesTheSessions) {
  SessionOptions options;
  options.operation_timeout_ms = 100;
  auto session = Session::Create(options);
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Extend(StuckAndQuick()).ok());
  const auto start = std::chrono::steady_clock::now();
  auto out = (*session)->Run(RunOptions{400}, {}, {"stuck"}, {});
  EXPECT_EQ(out.status().code(), Code::kDeadlineExceeded) << out.status().ToString();
  EXPECT_NE(out.status().message().find("operation timeout of 400 ms"), std::string::npos)
      << out.status().ToString();
  EXPECT_GE(std::chrono::steady_clock::now() - start, 400ms);
  ExpectQuickRunWorks(session->get());

  auto bad = (*session)->Run(RunOptions{-2}, {}, {"stuck"}, {});
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument) << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("RunOptions.timeout_ms is -2"), std::string::npos)
      << bad.status().ToString();
  ExpectQuickRunWorks(session->get());

  // Without a limit the step waits until the session closes.
  Status unlimited;
  std::atomic<bool> ended{false};
  std::thread run([&] {
    unlimited = (*session)->Run(RunOptions{RunOptions::kNoTimeout}, {}, {"stuck"}, {}).status();
    ended = true;
  });
  std::this_thread::sleep_for(600ms);
  EXPECT_FALSE(ended.load()) << "it ended before the close";
  EXPECT_TRUE((*session)->Close().ok());
  run.join();
  EXPECT_EQ(unlimited.code(), Code::kCancelled) << unlimited.ToString();
}

TEST(SessionAbortTest, ARunsOwnTimeoutAppliesWhereTheSessionHasNone) {
  auto session = Session::Create();
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Extend(StuckAndQuick()).ok());
  auto out = (*session)->Run(RunOptions{100}, {}, {"stuck"}, {});
  EXPECT_EQ(out.status().code(), Code::kDeadlineExceeded) << out.status().ToString();
  EXPECT_NE(out.status().message().find("operation timeout of 100 ms"), std::string::npos)
      << out.status().ToString();
  ExpectQuickRunWorks(session->get());
}

// A kernel that the abort cannot stop (here a reader opening a FIFO that
// no one writes to; a read from a hung network mount looks the same) holds
// its partition's answer. The client still gets its answer, at the timeout
// plus a grace (the health deadline), naming the task; the session goes on,
// and the answer that comes once the kernel ends is dropped. Before
// session 18 such a step held its client for ever: a task whose StepDone
// could not reach the master (its connection back refused) did the same.
TEST(SessionAbortTest, AStepWhoseKernelIgnoresTheAbortIsAbandonedNamingItsTask) {
  const std::string fifo = ::testing::TempDir() + "/tact_abort_fifo_" + std::to_string(getpid());
  ::unlink(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  Scope s = Scope::NewRootScope();
  auto files = FIFOQueue(s.WithOpName("files"), {DT_STRING});
  QueueEnqueueMany(s.WithOpName("fill"), files, {Const(s, Tensor::FromVector<std::string>({fifo}))});
  auto read = ReaderRead(s, FixedLengthRecordReader(s, 4), files);
  Mul(s.WithOpName("x2"), Placeholder(s.WithOpName("x"), DT_FLOAT), 2.0f);
  SessionOptions options;
  options.operation_timeout_ms = 100;
  options.health_timeout_ms = 1000;
  auto session = Session::Create(options);
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Extend(*s.ToGraphDef()).ok());
  ASSERT_TRUE((*session)->Run({}, {}, {"fill"}).ok());

  const auto start = std::chrono::steady_clock::now();
  auto out = (*session)->Run({}, {read.value.name()}, {});
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(out.status().code(), Code::kDeadlineExceeded) << out.status().ToString();
  EXPECT_NE(
      out.status().message().find("/job:localhost/replica:0/task:0 did not answer its abort within 1000 ms"),
      std::string::npos)
      << out.status().ToString();
  // Its first guess is this test's case; loops, which stop at an abort, are not a cause.
  EXPECT_NE(out.status().message().find("(a kernel still running there, or"), std::string::npos)
      << out.status().ToString();
  EXPECT_GE(took, 1100ms);
  EXPECT_LT(took, 10s);
  ExpectQuickRunWorks(session->get());

  // The reader's open returns once a writer comes; its late answer is dropped.
  const int w = ::open(fifo.c_str(), O_WRONLY);
  ASSERT_GE(w, 0) << std::strerror(errno);
  ASSERT_EQ(::write(w, "abcd", 4), 4);
  ::close(w);
  std::this_thread::sleep_for(100ms);
  ExpectQuickRunWorks(session->get());
  ::unlink(fifo.c_str());
}

TEST(SessionAbortTest, CloseCancelsARunningStep) {
  auto session = Session::Create();
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Extend(StuckAndQuick()).ok());
  ExpectQuickRunWorks(session->get());
  Status stuck_status;
  std::thread stuck([&] { stuck_status = (*session)->Run({}, {"stuck"}, {}).status(); });
  std::this_thread::sleep_for(50ms);  // long enough for the step to reach its _Recv
  ASSERT_TRUE((*session)->Close().ok());
  stuck.join();
  EXPECT_EQ(stuck_status.code(), Code::kCancelled) << stuck_status.ToString();
  EXPECT_EQ((*session)->Run({}, {"x2"}, {}).status().code(), Code::kFailedPrecondition);
}

}  // namespace
}  // namespace tact

// Session::RunAsync: a Run whose answer comes to a callback, so that a
// program's own actors can run steps without blocking their threads.
#include <gtest/gtest.h>

#include <atomic>
#include <caf/all.hpp>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "actors/session.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {

using namespace std::chrono_literals;

// "x2" doubles a fed scalar x; "take" dequeues from "q", which "put" feeds
// with v, so a Run of "take" waits until a "put".
std::unique_ptr<Session> Open() {
  Scope s = Scope::NewRootScope();
  Mul(s.WithOpName("x2"), Placeholder(s.WithOpName("x"), DT_FLOAT), 2.0f);
  Output q = FIFOQueue(s.WithOpName("q"), {DT_FLOAT});
  QueueEnqueue(s.WithOpName("put"), q, {Placeholder(s.WithOpName("v"), DT_FLOAT)});
  QueueDequeue(s.WithOpName("take"), q, {DT_FLOAT});
  auto session = Session::Create();
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  EXPECT_TRUE((*session)->Extend(*s.ToGraphDef()).ok());
  return std::move(session).value();
}

// An actor of the program's own actor system: a float asks for twice it,
// an int for the next value of the queue. Each answer comes back to it as
// a message (a double, or a string for an error), which it hands to
// `reporter`.
caf::behavior Asker(caf::event_based_actor* self, Session* session, caf::actor reporter) {
  auto answer_to = [me = caf::actor_cast<caf::actor>(self)](StatusOr<std::vector<Tensor>> r) {
    if (r.ok()) {
      caf::anon_send(me, static_cast<double>((*r)[0].scalar<float>()));
    } else {
      caf::anon_send(me, r.status().ToString());
    }
  };
  return {
      [=](float x) { session->RunAsync({}, {{"x", Tensor::Scalar<float>(x)}}, {"x2"}, {}, answer_to); },
      [=](int) { session->RunAsync({}, {}, {"take:0"}, {}, answer_to); },
      [=](double y) { self->send(reporter, y); },
      [=](const std::string& error) { self->send(reporter, error); },
  };
}

TEST(RunAsyncTest, AnActorOfTheProgramsOwnSystemRunsStepsWithoutBlockingItsThread) {
  auto session = Open();
  caf::actor_system_config cfg;
  cfg.set("scheduler.max-threads", 1);  // a blocked handler would hold every actor
  caf::actor_system system{cfg};
  caf::scoped_actor self{system};
  caf::actor asker = system.spawn(Asker, session.get(), caf::actor_cast<caf::actor>(self));
  std::vector<double> answers;
  auto next = [&] {
    self->receive([&](double y) { answers.push_back(y); },
                  [&](const std::string& error) { ADD_FAILURE() << error; },
                  caf::after(10s) >> [&] { ADD_FAILURE() << "no answer in 10 s"; });
  };
  self->send(asker, 1);     // waits for a put
  self->send(asker, 1.5f);  // answered meanwhile: the asker's thread is free
  next();
  ASSERT_EQ(answers, std::vector<double>({3.0}));
  ASSERT_TRUE(session->Run({{"v", Tensor::Scalar<float>(7.0f)}}, {}, {"put"}).ok());
  next();
  EXPECT_EQ(answers, std::vector<double>({3.0, 7.0}));
  self->send_exit(asker, caf::exit_reason::user_shutdown);
  EXPECT_TRUE(session->Close().ok());
}

TEST(RunAsyncTest, ManyRunsAtOnceEachGetItsOwnAnswer) {
  auto session = Open();
  constexpr int kRuns = 200;
  std::mutex mu;
  std::vector<float> got(kRuns, -1);
  std::atomic<int> answered{0};
  for (int i = 0; i < kRuns; ++i) {
    session->RunAsync({}, {{"x", Tensor::Scalar<float>(static_cast<float>(i))}}, {"x2"}, {},
                      [&, i](StatusOr<std::vector<Tensor>> r) {
                        std::lock_guard<std::mutex> lock(mu);
                        got[i] = r.ok() ? (*r)[0].scalar<float>() : -2;
                        ++answered;
                      });
  }
  for (int waited = 0; answered.load() < kRuns && waited < 1000; ++waited) std::this_thread::sleep_for(10ms);
  ASSERT_EQ(answered.load(), kRuns);
  for (int i = 0; i < kRuns; ++i) EXPECT_EQ(got[i], 2.0f * i) << i;
}

// A callback that starts the next Run, as a loop of steps without a
// thread of its own would: 5,000 cheap steps, each answered on the thread
// that started it, must not nest ever deeper (the stack would run out).
TEST(RunAsyncTest, ACallbackMayStartTheNextRun) {
  auto session = Open();
  constexpr int kSteps = 5000;
  std::atomic<int> done{0};
  std::atomic<bool> failed{false};
  std::function<void(StatusOr<std::vector<Tensor>>)> next = [&](StatusOr<std::vector<Tensor>> r) {
    if (!r.ok() || (*r)[0].scalar<float>() != 2.0f * static_cast<float>(done.load())) failed = true;
    if (done.fetch_add(1) + 1 < kSteps && !failed) {
      const float x = static_cast<float>(done.load());
      session->RunAsync({}, {{"x", Tensor::Scalar<float>(x)}}, {"x2"}, {}, next);
    }
  };
  session->RunAsync({}, {{"x", Tensor::Scalar<float>(0)}}, {"x2"}, {}, next);
  for (int waited = 0; done.load() < kSteps && !failed && waited < 2000; ++waited) {
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_FALSE(failed.load());
  EXPECT_EQ(done.load(), kSteps);
  EXPECT_TRUE(session->Close().ok());
}

// Errors come to the callback as Run returns them; Close answers a waiting
// RunAsync (Cancelled) before it returns, and one after it at once.
TEST(RunAsyncTest, ErrorsAndCloseReachTheCallback) {
  auto session = Open();
  std::mutex mu;
  std::vector<Status> statuses;
  auto record = [&](StatusOr<std::vector<Tensor>> r) {
    std::lock_guard<std::mutex> lock(mu);
    statuses.push_back(r.status());
  };
  // The answers so far, once there are `n` of them (or after 10 s).
  auto answers = [&](size_t n) {
    for (int waited = 0; waited < 1000; ++waited) {
      {
        std::lock_guard<std::mutex> lock(mu);
        if (statuses.size() >= n) return statuses;
      }
      std::this_thread::sleep_for(10ms);
    }
    std::lock_guard<std::mutex> lock(mu);
    return statuses;
  };
  session->RunAsync({}, {}, {"no_such_node:0"}, {}, record);
  session->RunAsync(RunOptions{-3}, {}, {"x2"}, {}, record);
  std::vector<Status> s = answers(2);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_NE(s[0].message().find("no_such_node"), std::string::npos) << s[0].ToString();
  EXPECT_EQ(s[1].code(), Code::kInvalidArgument) << s[1].ToString();
  EXPECT_NE(s[1].message().find("RunOptions.timeout_ms is -3"), std::string::npos) << s[1].ToString();

  session->RunAsync({}, {}, {"take:0"}, {}, record);  // waits until the close
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(answers(2).size(), 2u) << "the dequeue ended before the close";
  EXPECT_TRUE(session->Close().ok());
  s = answers(0);  // Close returned after the callback: no wait
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[2].code(), Code::kCancelled) << s[2].ToString();
  session->RunAsync({}, {{"x", Tensor::Scalar<float>(1)}}, {"x2"}, {}, record);
  s = answers(0);  // answered before RunAsync returned
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[3].code(), Code::kFailedPrecondition) << s[3].ToString();
}

}  // namespace
}  // namespace tact

// A client's call answers once, and a call dropped unanswered (its master
// ended) still answers, with Unavailable, so that no client waits for ever.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "actors/messages.h"

namespace tact {
namespace {

TEST(OnceReplyTest, AnswersOnceAndACallDroppedUnansweredAnswersUnavailable) {
  std::vector<StatusOr<std::vector<Tensor>>> answers;
  auto call = std::make_shared<RunCall>();
  call->reply = [&](StatusOr<std::vector<Tensor>> r) { answers.push_back(std::move(r)); };
  call->reply(std::vector<Tensor>{Tensor::Scalar<float>(2)});
  call->reply(errors::Cancelled("too late"));  // ignored
  call.reset();
  ASSERT_EQ(answers.size(), 1u);
  ASSERT_TRUE(answers[0].ok());
  EXPECT_EQ((*answers[0])[0].scalar<float>(), 2.0f);

  std::vector<Status> extends;
  auto dropped = std::make_shared<ExtendCall>();
  dropped->reply = [&](Status s) { extends.push_back(std::move(s)); };
  dropped.reset();  // as when a master's mailbox is destroyed
  ASSERT_EQ(extends.size(), 1u);
  EXPECT_EQ(extends[0].code(), Code::kUnavailable);
  EXPECT_NE(extends[0].message().find("master ended without answering"), std::string::npos)
      << extends[0].ToString();
}

// A Run's answer races from a link's reader thread and from the master:
// whichever comes first is the only one the client sees.
TEST(OnceReplyTest, TwoThreadsAnsweringAtOnceGiveOneAnswer) {
  for (int round = 0; round < 200; ++round) {
    std::atomic<int> answers{0};
    std::atomic<float> value{0};
    auto call = std::make_shared<RunCall>();
    call->reply = [&](StatusOr<std::vector<Tensor>> r) {
      answers.fetch_add(1);
      value.store((*r)[0].scalar<float>());
    };
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    for (int k = 1; k <= 2; ++k) {
      threads.emplace_back([&, k] {
        while (!go.load()) {
        }
        call->reply(std::vector<Tensor>{Tensor::Scalar<float>(static_cast<float>(k))});
      });
    }
    go.store(true);
    for (std::thread& t : threads) t.join();
    call.reset();
    ASSERT_EQ(answers.load(), 1) << "round " << round;
    EXPECT_TRUE(value.load() == 1.0f || value.load() == 2.0f);
  }
}

}  // namespace
}  // namespace tact

// A client's call answers once, and a call dropped unanswered (its master
// ended) still answers, with Internal, so that no client waits for ever.
#include <gtest/gtest.h>

#include <memory>

#include "actors/messages.h"

namespace tact {
namespace {

TEST(OnceReplyTest, AnswersOnceAndACallDroppedUnansweredAnswersInternal) {
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
  EXPECT_EQ(extends[0].code(), Code::kInternal);
  EXPECT_NE(extends[0].message().find("master ended without answering"), std::string::npos)
      << extends[0].ToString();
}

}  // namespace
}  // namespace tact

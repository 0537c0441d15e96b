// The in-process rendezvous as the end of a step reads it: RecvSent takes
// what the step's Sends left and never waits for one that did not run.
#include "kernels/rendezvous.h"

#include <gtest/gtest.h>

namespace tact {
namespace {

TEST(RendezvousTest, RecvSentTakesWhatWasSent) {
  auto rv = NewLocalRendezvous();
  ASSERT_TRUE(rv->Send("k", Tensor::Scalar<float>(3.5f)).ok());
  StatusOr<Tensor> got = rv->RecvSent("k", errors::Internal("k was not sent"));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->scalar<float>(), 3.5f);
}

// A Run whose fetch was sent under another key waited here for ever.
TEST(RendezvousTest, RecvSentOfAKeyNeverSentFailsAtOnceAndAbortsTheRest) {
  auto rv = NewLocalRendezvous();
  ASSERT_TRUE(rv->Send("sent", Tensor::Scalar<float>(1)).ok());
  StatusOr<Tensor> got = rv->RecvSent("missing", errors::Internal("fetch 'y:0' was not sent"));
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), Code::kInternal);
  EXPECT_EQ(got.status().message(), "fetch 'y:0' was not sent");
  // The step is over: what it left is dropped with the abort.
  StatusOr<Tensor> after = rv->Recv("sent");
  ASSERT_FALSE(after.ok());
  EXPECT_EQ(after.status().message(), "fetch 'y:0' was not sent");
  EXPECT_FALSE(rv->Send("late", Tensor::Scalar<float>(2)).ok());
}

}  // namespace
}  // namespace tact

// A step's messages on real tensor links (actors/step_link.h): a StepDone
// sent with SendStepDone comes out of the master's StepDoneAssembler with
// every fetch, its large ones having travelled as frames of their own, and
// frames that do not add up are errors that name their sender.
#include "actors/step_link.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "actors/bulk_transfer.h"
#include "actors/wire_auth.h"

namespace tact {
namespace {

const std::string kKey = ClusterKey("the cluster secret for these tests");

// The master's end: every frame into an assembler, the StepDones kept.
class MasterEnd {
 public:
  MasterEnd() {
    auto l = TensorLinks::Start("master-7", "127.0.0.1", kKey,
                                [this](const LinkSender& from, int64_t step, const std::string& key,
                                       const Tensor& t) {
                                  ++frames_;
                                  auto done = assembler_.Take(from, step, key, t);
                                  std::lock_guard<std::mutex> lock(mu_);
                                  if (!done.ok()) errors_.push_back(done.status());
                                  else if (done->has_value()) dones_.push_back(std::move(**done));
                                  cv_.notify_all();
                                });
    EXPECT_TRUE(l.ok()) << l.status().ToString();
    links_ = std::move(l).value();
  }
  uint16_t port() const { return links_->port(); }
  bool WaitDone(WireStepDone* done) {
    std::unique_lock<std::mutex> lock(mu_);
    if (!cv_.wait_for(lock, std::chrono::seconds(10), [&] { return !dones_.empty(); })) return false;
    *done = std::move(dones_.front());
    dones_.erase(dones_.begin());
    return true;
  }
  int frames() const { return frames_; }

 private:
  StepDoneAssembler assembler_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<WireStepDone> dones_;
  std::vector<Status> errors_;
  std::atomic<int> frames_{0};
  std::unique_ptr<TensorLinks> links_;
};

const Tensor* Fetched(const WireStepDone& done, const std::string& name) {
  for (const auto& [n, t] : done.fetched) {
    if (n == name) return &t;
  }
  return nullptr;
}

TEST(StepLinkTest, AStepDoneArrivesWithItsLargeAndSmallFetches) {
  MasterEnd master;
  auto worker = TensorLinks::SendOnly("/job:worker/replica:0/task:0", kKey);
  Tensor big(DT_FLOAT, TensorShape({int64_t{1} << 20}));  // 4 MiB: travels by link
  for (int64_t i = 0; i < big.NumElements(); ++i) big.data<float>()[i] = static_cast<float>(i % 977);
  ASSERT_TRUE(TravelsByLink(big));
  const Tensor small = Tensor::FromVector<int32_t>({4, 5, 6});
  WireStepDone done{41, "partition_x_1", Status::OK(), {{"big:0", big}, {"small:0", small}}, {}, {}};
  const LinkSender to{"master-7", "127.0.0.1"};
  ASSERT_TRUE(SendStepDone(worker.get(), to, master.port(), 0, done).ok());
  WireStepDone got;
  ASSERT_TRUE(master.WaitDone(&got));
  EXPECT_EQ(master.frames(), 2) << "the big fetch, then the StepDone";
  EXPECT_EQ(got.step_id, 41);
  EXPECT_EQ(got.handle, "partition_x_1");
  EXPECT_TRUE(got.status.ok()) << got.status.ToString();
  EXPECT_TRUE(got.linked_fetches.empty());
  ASSERT_NE(Fetched(got, "big:0"), nullptr);
  EXPECT_TRUE(Fetched(got, "big:0")->BitwiseEqual(big));
  ASSERT_NE(Fetched(got, "small:0"), nullptr);
  EXPECT_TRUE(Fetched(got, "small:0")->BitwiseEqual(small));
}

TEST(StepLinkTest, AStepDoneWhoseFetchNeverCameFailsNamingIt) {
  StepDoneAssembler assembler;
  WireStepDone done{9, "p", Status::OK(), {}, {}, {"lost:0"}};
  const LinkSender from{"/job:worker/replica:0/task:3", "10.0.0.3"};
  auto got = assembler.Take(from, 9, kStepDoneKey, *MessageTensor(done));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_TRUE(got->has_value());
  const Status& s = (*got)->status;
  EXPECT_EQ(s.code(), Code::kDataLoss) << s.ToString();
  EXPECT_NE(s.message().find("fetch 'lost:0' of step 9 from task /job:worker/replica:0/task:3"), std::string::npos)
      << s.ToString();
  // A fetch for another step is not taken for this one.
  ASSERT_TRUE(assembler.Take(from, 8, LinkedFetchKey("p", "lost:0"), Tensor::Scalar<float>(1)).ok());
  got = assembler.Take(from, 9, kStepDoneKey, *MessageTensor(done));
  EXPECT_EQ((*got)->status.code(), Code::kDataLoss);
}

TEST(StepLinkTest, FramesThatAreNotStepDonesAreErrorsNamingTheSender) {
  StepDoneAssembler assembler;
  const LinkSender from{"/job:ps/replica:0/task:0", "127.0.0.1"};
  auto got = assembler.Take(from, 1, kStepDoneKey, Tensor::Scalar<float>(1));
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("from task /job:ps/replica:0/task:0"), std::string::npos)
      << got.status().ToString();
  Tensor junk(DT_UINT8, TensorShape({5}));
  for (int i = 0; i < 5; ++i) junk.data<uint8_t>()[i] = 0xff;
  got = assembler.Take(from, 1, kStepDoneKey, junk);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), Code::kDataLoss) << got.status().ToString();
  got = assembler.Take(from, 1, kRunStepKey, junk);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("msg;RunStep"), std::string::npos) << got.status().ToString();
}

TEST(StepLinkTest, RunStepAndAbortStepSurviveTheirFrames) {
  WireRunStep run{12, "h", {{"x:0", Tensor::Scalar<float>(2)}}, false, {"big:0"}, 5555, 2};
  WireRunStep run2;
  ASSERT_TRUE(DecodeMessage(*MessageTensor(run), &run2).ok());
  EXPECT_EQ(run2.step_id, 12);
  EXPECT_EQ(run2.reply_port, 5555);
  EXPECT_EQ(run2.reply_epoch, 2u);
  EXPECT_EQ(run2.linked_feeds, run.linked_feeds);
  WireAbortStep abort{12, errors::Cancelled("stop")};
  WireAbortStep abort2;
  ASSERT_TRUE(DecodeMessage(*MessageTensor(abort), &abort2).ok());
  EXPECT_EQ(abort2.status, abort.status);
  EXPECT_TRUE(IsStepMessage(kRunStepKey));
  EXPECT_TRUE(IsStepMessage(LinkedFetchKey("h", "y:0")));
  EXPECT_FALSE(IsStepMessage("attr;node;value"));
}

}  // namespace
}  // namespace tact

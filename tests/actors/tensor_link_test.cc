// Tensor links over real loopback sockets: tensors arrive whole and equal,
// a peer without the cluster's secret is refused, and a malformed frame
// drops only its own link.
#include "actors/tensor_link.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "actors/send_batch.h"
#include "actors/wire_auth.h"

namespace tact {
namespace {

// What a link delivered, by key.
class Inbox {
 public:
  TensorLinks::Deliver Callback() {
    return [this](const LinkSender& from, int64_t step, const std::string& key, const Tensor& t) {
      std::lock_guard<std::mutex> lock(mu_);
      got_[key] = {step, t};
      senders_[key] = from;
      cv_.notify_all();
    };
  }
  bool Wait(const std::string& key, int64_t* step, Tensor* t) {
    std::unique_lock<std::mutex> lock(mu_);
    if (!cv_.wait_for(lock, std::chrono::seconds(5), [&] { return got_.count(key) > 0; })) return false;
    *step = got_[key].first;
    *t = got_[key].second;
    return true;
  }
  LinkSender SenderOf(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    return senders_[key];
  }
  size_t size() {
    std::lock_guard<std::mutex> lock(mu_);
    return got_.size();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::pair<int64_t, Tensor>> got_;
  std::map<std::string, LinkSender> senders_;
};

const std::string kKey = ClusterKey("the cluster secret for these tests");

// "k<n>", appended: GCC 12 warns (-Wrestrict, wrongly) on "k" + to_string.
std::string KeyFor(int64_t n) {
  std::string key = "k";
  key += std::to_string(n);
  return key;
}

std::unique_ptr<TensorLinks> Start(const std::string& task, const std::string& key, Inbox* inbox) {
  auto l = TensorLinks::Start(task, "127.0.0.1", key, inbox->Callback());
  EXPECT_TRUE(l.ok()) << l.status().ToString();
  return std::move(l).value();
}

int ConnectTo(uint16_t port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  return fd;
}

TEST(TensorLinkTest, TensorsArriveWholeWhateverTheirSize) {
  Inbox a_in, b_in;
  auto a = Start("/job:w/replica:0/task:0", kKey, &a_in);
  auto b = Start("/job:w/replica:0/task:1", kKey, &b_in);
  std::vector<Tensor> sent;
  for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{1000}, int64_t{3} << 20}) {  // up to 12 MiB
    Tensor t(DT_FLOAT, TensorShape({n}));
    for (int64_t i = 0; i < n; ++i) t.data<float>()[i] = static_cast<float>(i) * 0.5f;
    sent.push_back(t);
    ASSERT_TRUE(a->Send("/job:w/replica:0/task:1", "127.0.0.1", b->port(), 0, 40 + n, KeyFor(n), t).ok());
  }
  Tensor ints = Tensor::FromVector<int64_t>({7, -8, 9});
  ASSERT_TRUE(b->Send("/job:w/replica:0/task:0", "127.0.0.1", a->port(), 0, 5, "ints", ints).ok());
  for (const Tensor& t : sent) {
    int64_t step = 0;
    Tensor got;
    const int64_t n = t.NumElements();
    ASSERT_TRUE(b_in.Wait(KeyFor(n), &step, &got)) << n;
    EXPECT_EQ(step, 40 + n);
    EXPECT_TRUE(got.BitwiseEqual(t)) << n;
  }
  int64_t step = 0;
  Tensor got;
  ASSERT_TRUE(a_in.Wait("ints", &step, &got));
  EXPECT_TRUE(got.BitwiseEqual(ints));
  EXPECT_FALSE(TensorLinks::Carries(DT_STRING));
}

// A frame is delivered on its link's reader thread, which runs under
// SCHED_BATCH so that its wake-up never preempts the sender's compute
// thread (actors/thread_policy.h).
TEST(TensorLinkTest, TheReaderDeliversUnderTheBatchPolicy) {
  std::mutex mu;
  std::condition_variable cv;
  int policy = -1;
  auto deliver = [&](const LinkSender&, int64_t, const std::string&, const Tensor&) {
    std::lock_guard<std::mutex> lock(mu);
    policy = sched_getscheduler(0);
    cv.notify_all();
  };
  Inbox a_in;
  auto a = Start("/job:w/replica:0/task:0", kKey, &a_in);
  auto b = TensorLinks::Start("/job:w/replica:0/task:1", "127.0.0.1", kKey, deliver);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  ASSERT_TRUE(a->Send("/job:w/replica:0/task:1", "127.0.0.1", (*b)->port(), 0, 1, "x", Tensor::Scalar<float>(2.5f)).ok());
  std::unique_lock<std::mutex> lock(mu);
  ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(5), [&] { return policy != -1; }));
  EXPECT_EQ(policy, SCHED_BATCH);
}

TEST(TensorLinkTest, PeerWithoutTheSecretIsRefusedBothWays) {
  Inbox in, other_in;
  auto b = Start("/job:w/replica:0/task:1", kKey, &in);
  auto stranger = Start("/job:w/replica:0/task:0", ClusterKey("a different cluster's secret!"), &other_in);
  Status s = stranger->Send("/job:w/replica:0/task:1", "127.0.0.1", b->port(), 0, 1, "x", Tensor::Scalar<float>(1));
  EXPECT_EQ(s.code(), Code::kUnavailable) << s.ToString();
  EXPECT_NE(s.message().find("did not prove the cluster's secret"), std::string::npos) << s.ToString();
  // A link to the wrong task: the answering task's name is checked.
  Inbox c_in;
  auto c = Start("/job:w/replica:0/task:0", kKey, &c_in);
  s = c->Send("/job:w/replica:0/task:7", "127.0.0.1", b->port(), 0, 1, "x", Tensor::Scalar<float>(1));
  EXPECT_NE(s.message().find("the process there is '/job:w/replica:0/task:1'"), std::string::npos) << s.ToString();
}

TEST(TensorLinkTest, GarbageDropsOnlyItsOwnConnection) {
  Inbox in, a_in;
  auto b = Start("/job:w/replica:0/task:1", kKey, &in);
  // Not a tact peer at all.
  const int junk = ConnectTo(b->port());
  const std::string bytes(4096, '\x5a');
  ASSERT_GT(write(junk, bytes.data(), bytes.size()), 0);
  char c;
  EXPECT_LE(read(junk, &c, 1), 0) << "the link should have been closed";
  close(junk);
  // A real peer still gets through.
  auto a = Start("/job:w/replica:0/task:0", kKey, &a_in);
  ASSERT_TRUE(a->Send("/job:w/replica:0/task:1", "127.0.0.1", b->port(), 0, 3, "after", Tensor::Scalar<float>(2)).ok());
  int64_t step = 0;
  Tensor got;
  ASSERT_TRUE(in.Wait("after", &step, &got));
  EXPECT_EQ(got.scalar<float>(), 2.0f);
}

// Between processes that may read each other's memory (here: this one
// and itself), a large tensor is lent: the receiver copies it out of the
// sender, which keeps it alive until the receiver has, even with no other
// reference left. Small tensors, and every tensor with lending turned off,
// go on the socket.
// Whether this machine lets a process read memory with process_vm_readv
// (a seccomp filter may forbid it; then links never lend).
bool CanReadProcessMemory() {
  int64_t from = 42, to = 0;
  iovec local{&to, sizeof to}, remote{&from, sizeof from};
  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == sizeof to && to == 42;
}

TEST(TensorLinkTest, LargeTensorsAreLentAndOutliveTheSendersReference) {
  const bool lending = CanReadProcessMemory();
  Inbox in, unused;
  auto b = Start("/job:w/replica:0/task:1", kKey, &in);
  auto a = Start("/job:w/replica:0/task:0", kKey, &unused);
  const std::string to = "/job:w/replica:0/task:1";
  const int64_t n = int64_t{4} << 20;  // floats: 16 MiB
  {
    Tensor big(DT_FLOAT, TensorShape({n}));
    for (int64_t i = 0; i < n; ++i) big.data<float>()[i] = static_cast<float>(i % 4099);
    ASSERT_TRUE(a->Send(to, "127.0.0.1", b->port(), 0, 1, "big", big).ok());
  }  // the only reference left is the link's
  ASSERT_TRUE(a->Send(to, "127.0.0.1", b->port(), 0, 1, "small", Tensor::Scalar<float>(5)).ok());
  int64_t step = 0;
  Tensor got;
  ASSERT_TRUE(in.Wait("big", &step, &got));
  ASSERT_EQ(got.NumElements(), n);
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) wrong += got.data<float>()[i] != static_cast<float>(i % 4099);
  EXPECT_EQ(wrong, 0);
  ASSERT_TRUE(in.Wait("small", &step, &got));
  EXPECT_EQ(got.scalar<float>(), 5.0f);
  EXPECT_EQ(a->tensors_lent(), lending ? 1u : 0u) << "the 16 MiB tensor, not the scalar";

  setenv("TACT_LINK_LENDING", "0", 1);
  Inbox c_in;
  auto c = Start("/job:w/replica:0/task:2", kKey, &c_in);
  unsetenv("TACT_LINK_LENDING");
  Tensor big(DT_FLOAT, TensorShape({n}));
  for (int64_t i = 0; i < n; ++i) big.data<float>()[i] = static_cast<float>(-i);
  ASSERT_TRUE(c->Send(to, "127.0.0.1", b->port(), 0, 2, "unlent", big).ok());
  ASSERT_TRUE(in.Wait("unlent", &step, &got));
  EXPECT_TRUE(got.BitwiseEqual(big));
  EXPECT_EQ(c->tensors_lent(), 0u);
}

// A lent tensor whose sender let go of it before the receiver read its
// frame (the sender's link closed: a worker whose connections were cut, or
// that died) cannot arrive. Its Recv hears so at once through `lost`, with
// the key and the step, instead of waiting for the step's deadline.
TEST(TensorLinkTest, ALentTensorLetGoBeforeItWasCopiedIsReportedLost) {
  if (!CanReadProcessMemory()) GTEST_SKIP() << "this machine forbids process_vm_readv: nothing is lent";
  std::mutex mu;
  std::condition_variable cv;
  bool open_gate = false;
  std::vector<std::string> delivered;
  struct LostTensor {
    int64_t step;
    std::string key;
    Status why;
  };
  std::vector<LostTensor> lost;
  auto deliver = [&](const LinkSender&, int64_t, const std::string& key, const Tensor&) {
    std::unique_lock<std::mutex> lock(mu);
    delivered.push_back(key);
    cv.notify_all();
    // The reader waits here, with the next frame unread on its socket.
    if (key == "gate") cv.wait(lock, [&] { return open_gate; });
  };
  auto on_lost = [&](const LinkSender&, int64_t step, const std::string& key, const Status& why) {
    std::lock_guard<std::mutex> lock(mu);
    lost.push_back({step, key, why});
    cv.notify_all();
  };
  auto b = TensorLinks::Start("/job:w/replica:0/task:1", "127.0.0.1", kKey, deliver, nullptr, on_lost);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  Inbox unused;
  auto a = Start("/job:w/replica:0/task:0", kKey, &unused);
  const std::string to = "/job:w/replica:0/task:1";
  ASSERT_TRUE(a->Send(to, "127.0.0.1", (*b)->port(), 0, 7, "gate", Tensor::Scalar<float>(1)).ok());
  {
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(5), [&] { return !delivered.empty(); }));
  }
  Tensor big(DT_FLOAT, TensorShape({int64_t{1} << 20}));  // 4 MiB: lent
  for (int64_t i = 0; i < big.NumElements(); ++i) big.data<float>()[i] = 1.0f;
  ASSERT_TRUE(a->Send(to, "127.0.0.1", (*b)->port(), 0, 7, "big", big).ok());
  EXPECT_EQ(a->tensors_lent(), 1u);
  // Its frame (the header only) is written on the link's own thread.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  a->Forget(to);  // the sender's end closes: what it lent is let go
  {
    std::lock_guard<std::mutex> lock(mu);
    open_gate = true;
    cv.notify_all();
  }
  std::unique_lock<std::mutex> lock(mu);
  ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(5), [&] { return !lost.empty(); }))
      << "the lent tensor was neither delivered nor reported lost";
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ(lost[0].step, 7);
  EXPECT_EQ(lost[0].key, "big");
  EXPECT_EQ(lost[0].why.code(), Code::kUnavailable);
  EXPECT_NE(lost[0].why.message().find("the tensor link from /job:w/replica:0/task:0 lost the tensor for key "
                                       "'big' of step 7"),
            std::string::npos)
      << lost[0].why.ToString();
  EXPECT_EQ(delivered, std::vector<std::string>{"gate"});
}

// A burst sent inside a SendBatch stays on the sender until the batch
// closes, then arrives whole and in order; the lent tensors among it are
// answered (the sender lets go) although the receiver answers a burst at
// once rather than frame by frame.
TEST(TensorLinkTest, ABatchLeavesWhenItClosesInOrderAndItsLentTensorsAreLetGo) {
  Inbox in, unused;
  std::mutex mu;
  std::vector<std::string> order;
  auto b = TensorLinks::Start("/job:w/replica:0/task:1", "127.0.0.1", kKey,
                              [&](const LinkSender& from, int64_t step, const std::string& key, const Tensor& t) {
                                {
                                  std::lock_guard<std::mutex> lock(mu);
                                  order.push_back(key);
                                }
                                in.Callback()(from, step, key, t);
                              });
  ASSERT_TRUE(b.ok());
  auto a = Start("/job:w/replica:0/task:0", kKey, &unused);
  const std::string to = "/job:w/replica:0/task:1";
  ASSERT_TRUE(a->Connect(to, "127.0.0.1", (*b)->port(), 0).ok());
  constexpr int kFrames = 12;
  std::vector<Tensor> sent;
  {
    SendBatch batch;
    for (int i = 0; i < kFrames; ++i) {
      // Every other one large enough to be lent where lending works.
      Tensor t(DT_FLOAT, TensorShape({i % 2 == 0 ? int64_t{200000} : int64_t{3}}));
      for (int64_t j = 0; j < t.NumElements(); ++j) t.data<float>()[j] = static_cast<float>(i * 1000 + j % 997);
      ASSERT_TRUE(a->Send(to, "127.0.0.1", (*b)->port(), 0, 7, KeyFor(i), t).ok());
      sent.push_back(t);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(in.size(), 0u) << "nothing leaves while the batch is open";
  }
  for (int i = 0; i < kFrames; ++i) {
    int64_t step = 0;
    Tensor got;
    ASSERT_TRUE(in.Wait(KeyFor(i), &step, &got)) << i;
    EXPECT_EQ(step, 7);
    EXPECT_TRUE(got.BitwiseEqual(sent[i])) << i;
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    ASSERT_EQ(order.size(), static_cast<size_t>(kFrames));
    for (int i = 0; i < kFrames; ++i) EXPECT_EQ(order[i], KeyFor(i));
  }
  // Answered: the link holds none of them any more (a bounded wait, since
  // the answers come back on their own thread).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  auto held = [&] {
    int n = 0;
    for (const Tensor& t : sent) n += t.buffer().use_count() > 1;
    return n;
  };
  while (held() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(held(), 0);
  EXPECT_EQ(a->tensors_lent(), CanReadProcessMemory() ? static_cast<uint64_t>(kFrames / 2) : 0u);
}

// What the master's actor relies on: SendIfLinked never opens a link (it
// must not wait on a socket), and uses only one of this port and epoch.
// A frame names its sender; Forget closes a link, and its far end hears.
TEST(TensorLinkTest, SendIfLinkedUsesOnlyAnOpenLinkAndForgetClosesIt) {
  Inbox a_in, b_in;
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> closed;
  auto b = TensorLinks::Start("/job:w/replica:0/task:1", "127.0.0.1", kKey, b_in.Callback(),
                              [&](const LinkSender& from) {
                                std::lock_guard<std::mutex> lock(mu);
                                closed.push_back(from.task);
                                cv.notify_all();
                              });
  ASSERT_TRUE(b.ok());
  auto a = Start("master-1", kKey, &a_in);
  const std::string to = "/job:w/replica:0/task:1";
  EXPECT_FALSE(a->SendIfLinked(to, (*b)->port(), 0, 1, "early", Tensor::Scalar<float>(1)));
  ASSERT_TRUE(a->Connect(to, "127.0.0.1", (*b)->port(), 0).ok());
  EXPECT_TRUE(a->SendIfLinked(to, (*b)->port(), 0, 2, "linked", Tensor::Scalar<float>(2)));
  EXPECT_FALSE(a->SendIfLinked(to, (*b)->port(), 1, 3, "next epoch", Tensor::Scalar<float>(3)));
  int64_t step = 0;
  Tensor got;
  ASSERT_TRUE(b_in.Wait("linked", &step, &got));
  EXPECT_EQ(step, 2);
  EXPECT_EQ(got.scalar<float>(), 2.0f);
  EXPECT_EQ(b_in.size(), 1u) << "only the frame sent on an open link arrives";
  EXPECT_EQ(b_in.SenderOf("linked").task, "master-1");
  EXPECT_EQ(b_in.SenderOf("linked").host, "127.0.0.1");
  a->Forget(to);
  std::unique_lock<std::mutex> lock(mu);
  ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(5), [&] { return !closed.empty(); }));
  EXPECT_EQ(closed[0], "master-1");
  EXPECT_FALSE(a->SendIfLinked(to, (*b)->port(), 0, 4, "forgotten", Tensor::Scalar<float>(4)));
}

}  // namespace
}  // namespace tact

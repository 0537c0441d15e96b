#include "actors/queue_runner.h"

#include <chrono>
#include <thread>

namespace tact {
namespace {

// How often, and for how long, a refill that failed with Unavailable is
// tried again (QueueRunner::Refill).
constexpr std::chrono::milliseconds kRefillRetry{100};
constexpr std::chrono::seconds kRefillRetryWindow{5};

// How a Run ends that is not a failure of the runner: the input is done
// (OutOfRange), or the queue or the session was closed (Cancelled).
bool EndOfInput(const Status& s) { return s.code() == Code::kOutOfRange || s.code() == Code::kCancelled; }

}  // namespace

QueueRunner::QueueRunner(Session* session, std::vector<std::string> enqueue_targets, std::string close_target,
                         std::string refill_target)
    : session_(session),
      enqueue_targets_(std::move(enqueue_targets)),
      close_target_(std::move(close_target)),
      refill_target_(std::move(refill_target)) {}

QueueRunner::~QueueRunner() { (void)Stop(); }

void QueueRunner::Start(int threads_per_target) {
  running_.fetch_add(threads_per_target * static_cast<int>(enqueue_targets_.size()));
  for (const std::string& target : enqueue_targets_) {
    for (int i = 0; i < threads_per_target; ++i) threads_.emplace_back([this, target] { Loop(target); });
  }
}

void QueueRunner::Loop(const std::string& target) {
  while (!stopping_.load()) {
    const int64_t refills = refills_.load();
    // No deadline: an enqueue waits for room for as long as the consumer
    // takes (a test pass between epochs, a checkpoint, a recovery); a
    // timeout there would drop the records it read and end the input.
    Status s = session_->Run(RunOptions{RunOptions::kNoTimeout}, {}, {}, {target}).status();
    if (s.ok()) {
      enqueued_.fetch_add(1);
      continue;
    }
    if (s.code() == Code::kUnavailable && !refill_target_.empty() && !stopping_.load()) {
      Status refilled = Refill(refills);
      if (refilled.ok()) continue;
      s = refilled.WithPrefix("after '" + target + "' failed with " + s.ToString() + ", refill: ");
    }
    const bool last = running_.fetch_sub(1) == 1;
    if (!EndOfInput(s) && !stopping_.load()) {
      Fail(s.WithPrefix("queue runner, target '" + target + "': "));
    } else if (last && s.code() == Code::kOutOfRange && !stopping_.load()) {
      Close();  // the input is done: consumers drain the queue, then see OutOfRange
    }
    return;
  }
  running_.fetch_sub(1);
}

Status QueueRunner::Refill(int64_t seen) {
  std::lock_guard<std::mutex> lock(refill_mu_);
  if (refills_.load() != seen) return Status::OK();  // another thread refilled since
  // The enqueue may learn of a loss before the master does (its task saw
  // the connection break first). A refill started then fails at once, with
  // whatever the master's step met, or with the loss itself when the master
  // learns of it while the refill is under way; a session's CI run saw two
  // tries in a row fail that way. Once the master knows, a refill is a Run
  // that needs a lost task and waits for it (up to the session's task
  // wait). So an Unavailable refill is tried again every kRefillRetry for
  // kRefillRetryWindow, the time a master takes to learn of a loss (a
  // broken connection at once; a hung task after its missed pings). A
  // failure after that window is the runner's.
  const auto give_up = std::chrono::steady_clock::now() + kRefillRetryWindow;
  Status s;
  while (!stopping_.load()) {
    s = session_->Run({}, {}, {refill_target_}).status();
    if (s.code() != Code::kUnavailable || std::chrono::steady_clock::now() >= give_up) break;
    std::this_thread::sleep_for(kRefillRetry);
  }
  if (!s.ok() && s.code() != Code::kCancelled) return s;  // Cancelled: the old queues lived on
  refills_.fetch_add(1);
  return Status::OK();
}

void QueueRunner::Fail(const Status& s) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (error_.ok()) error_ = s;
    // A queue on a lost task went with it; closing it would wait for the
    // task, then close the fresh queue of the one that comes back.
    if (s.code() == Code::kUnavailable) closed_ = true;
  }
  stopping_.store(true);
  Close();  // no dequeue waits for an input that will not come
}

void QueueRunner::Close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_ || close_target_.empty()) return;
    closed_ = true;
  }
  Status s = session_->Run({}, {}, {close_target_}).status();
  if (!s.ok() && s.code() != Code::kFailedPrecondition) {  // a closed session needs no close
    std::lock_guard<std::mutex> lock(mu_);
    if (error_.ok()) error_ = s.WithPrefix("queue runner, close target '" + close_target_ + "': ");
  }
}

Status QueueRunner::Stop() {
  stopping_.store(true);
  Close();
  return Join();
}

Status QueueRunner::status() const {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

Status QueueRunner::Join() {
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

}  // namespace tact

// Keeps a queue fed (paper 4.6: input prefetching), as TensorFlow's
// QueueRunner: threads of its own that run an enqueue target over and over
// on a session, until the input ends or the runner is stopped.
//
//   QueueRunner runner(session, {"enqueue"}, "close_cancel");
//   runner.Start(/*threads_per_op=*/2);
//   ... training Runs dequeue batches ...
//   TACT_RETURN_IF_ERROR(runner.Stop());  // closes the queue, joins
//
// A thread ends when its Run fails with OutOfRange (its input is done) or
// Cancelled (the queue was closed, or the session); the first other error
// ends every thread, closes the queue so that dequeues do not wait for
// ever, and is returned by Stop and Join. When the last thread ends at the
// end of its input, the runner closes the queue (as TensorFlow's does): its
// consumers drain what is left (a RandomShuffleQueue its last
// min_after_dequeue elements too), then see OutOfRange.
//
// Thread-safe. The session must outlive the runner.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "actors/session.h"

namespace tact {

class QueueRunner {
 public:
  // `close_target` runs once when the runner stops or fails: a QueueClose,
  // usually with cancel_pending_enqueues, so that blocked enqueues end.
  QueueRunner(Session* session, std::vector<std::string> enqueue_targets, std::string close_target);
  ~QueueRunner();  // Stop()
  QueueRunner(const QueueRunner&) = delete;
  QueueRunner& operator=(const QueueRunner&) = delete;

  // `threads_per_target` threads for each enqueue target.
  void Start(int threads_per_target = 1);
  // Closes the queue, waits for the threads, and returns the first error
  // other than the end of input.
  Status Stop();
  // Waits for the threads to end by themselves (their input done).
  Status Join();
  // Enqueue Runs that succeeded so far.
  int64_t enqueued() const { return enqueued_.load(); }

 private:
  void Loop(const std::string& target);
  void Fail(const Status& s);
  void Close();

  Session* const session_;
  const std::vector<std::string> enqueue_targets_;
  const std::string close_target_;
  std::vector<std::thread> threads_;
  std::atomic<bool> stopping_{false};
  std::atomic<int64_t> enqueued_{0};
  std::atomic<int> running_{0};  // threads not yet ended
  std::mutex mu_;
  Status error_;        // the first error
  bool closed_ = false;  // the close target has run
};

}  // namespace tact

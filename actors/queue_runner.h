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
// A lost task (an enqueue fails with Unavailable) is not the end of the
// input when the runner has a `refill_target`: the queues and readers on
// that task went with it, and the task that comes back holds fresh, empty
// ones. The thread runs the refill target (the Run waits for the task, as
// long as the session waits for lost tasks; a refill that fails at once,
// before the master has learned of the loss, is tried again for a few
// seconds) and goes on
// enqueueing. A refill that finds its queue closed (Cancelled) met the old
// process, which lived on with its queues (only its connection broke): it
// goes on too.
// Without a refill target, or when the task is not back in time, the
// runner fails, but never closes the queue: its Run would wait for the
// task and then close the fresh queue of the one that comes back.
//
// An enqueue Run has no deadline (RunOptions::kNoTimeout), whatever the
// session's operation timeout: it waits for room in the queue, and Stop's
// close or a lost task ends that wait.
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
  // `refill_target` (optional) fills the queues the enqueues read from
  // (filenames, say): the caller runs it once before Start, and the runner
  // again after a lost task (above).
  QueueRunner(Session* session, std::vector<std::string> enqueue_targets, std::string close_target,
              std::string refill_target = "");
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
  // The runner's failure so far, as Stop would return it (OK while none):
  // why a consumer found the queue closed early.
  Status status() const;
  // Enqueue Runs that succeeded so far.
  int64_t enqueued() const { return enqueued_.load(); }

 private:
  void Loop(const std::string& target);
  // After an enqueue that started at refill count `seen` failed with
  // Unavailable: refills once for all threads; OK to go on enqueueing.
  Status Refill(int64_t seen);
  void Fail(const Status& s);
  void Close();

  Session* const session_;
  const std::vector<std::string> enqueue_targets_;
  const std::string close_target_;
  const std::string refill_target_;
  std::vector<std::thread> threads_;
  std::atomic<bool> stopping_{false};
  std::atomic<int64_t> enqueued_{0};
  std::atomic<int64_t> refills_{0};
  std::mutex refill_mu_;  // one thread refills
  std::atomic<int> running_{0};  // threads not yet ended
  mutable std::mutex mu_;
  Status error_;        // the first error
  bool closed_ = false;  // the close target has run
};

}  // namespace tact

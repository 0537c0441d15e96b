// Hears a step's abort from outside (its timeout, Close, a lost task, its
// master's death) for a party that does not wait on the step's rendezvous:
// the executor with frames, whose loops wait on nothing and so would run
// on past the abort (actors/frame_executor.cc).
//
//   StepAbortListener listener;
//   listener.Start(rendezvous, [this](const Status& s) { StopStartingNodes(s); });
//   ...
//   listener.Stop();  // before `this` goes
//
// The rendezvous may be calling on_abort while the step finishes, so Stop
// waits out a call in progress; after it returns, on_abort never runs.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>

#include "graph/status.h"

namespace tact {

class Rendezvous;

class StepAbortListener {
 public:
  using OnAbort = std::function<void(const Status& status)>;

  // `on_abort` runs once if `rendezvous` (null: nothing to hear) is aborted
  // before Stop: at once, on this thread, if it already is.
  void Start(Rendezvous* rendezvous, OnAbort on_abort);
  void Stop();

 private:
  struct Link {
    std::mutex mu;
    OnAbort on_abort;  // empty once stopped
  };
  Rendezvous* rendezvous_ = nullptr;
  std::shared_ptr<Link> link_;
  uint64_t token_ = 0;
};

}  // namespace tact

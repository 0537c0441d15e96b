// How a session brings lost tasks and a dead master back
// (actors/supervisor.h; paper 3.3), and how a supervised session checkpoints and restores the variables
// (actors/supervised_session.h). A task is lost when its connection breaks
// or it misses a health ping: the steps it takes part in fail, the master
// tries its address with backoff and attaches the process that answers
// there, and meanwhile a Run that needs it waits (up to task_wait_ms).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "graph/status.h"

namespace tact {

// Checkpoints of every Variable (checkpoint/checkpoint.h), every
// `every_steps` steps and/or every `every_secs` seconds, keeping the newest
// `keep`. An empty `dir`: no checkpoints, so no restore after a failure.
// A step saves after it when `every_secs` have passed since the last save
// as it starts (SupervisedSession::saves_after_this_step).
struct CheckpointOptions {
  std::string dir;
  int64_t every_steps = 0;
  double every_secs = 0;
  int keep = 5;
};

struct SupervisionOptions {
  // Brings a lost task back, e.g. by starting its local process again.
  // Called while the task stays lost (about every 25 ms), with how long it
  // has been lost (or since the process it last started); returns whether
  // it started a new process. Empty: the tasks are someone else's and come
  // back by themselves.
  std::function<bool(const std::string& task, std::chrono::milliseconds lost_for)> restart_task;
  // More than this many restarts (task losses and master restarts) within
  // restart_window_secs end the session's use of the cluster: every Run
  // then fails with Aborted, naming the last failure. Negative: no limit.
  int max_restarts = -1;
  double restart_window_secs = 60;
  // How long a Run that needs a lost task waits for it to be attached
  // again before failing with Unavailable; 0: it fails at once.
  int64_t task_wait_ms = 0;
  // Told of each task the session loses, and of each it attaches again (a
  // restarted process, or the same one reconnected). Called on the master's
  // thread, before any Run waiting for the task goes on: keep it short.
  std::function<void(const std::string& task, const Status& why)> on_task_lost;
  std::function<void(const std::string& task)> on_task_back;
  // Read by SupervisedSession only.
  CheckpointOptions checkpoint;
};

}  // namespace tact

#include "actors/supervisor.h"

#include <chrono>
#include <deque>
#include <map>

#include "actors/messages.h"

namespace tact {
namespace {

using Clock = std::chrono::steady_clock;

// How often a lost task's restart is tried again while it stays lost (its
// old process may not have exited yet), and a restarted one is tried by
// the master: a new process listens after 100-200 ms here, and a failed
// try (a refused connection) costs well under a millisecond.
constexpr auto kRestartRetry = std::chrono::milliseconds(25);

using watch_atom = caf::atom_constant<caf::atom("watch")>;

struct SupervisorState {
  SupervisionOptions options;
  caf::actor master;
  std::deque<Clock::time_point> losses;         // within the restart window
  struct Lost {
    Clock::time_point since;  // lost, or its newest process started
    bool restarted = false;  // a new process was started for it
  };
  std::map<std::string, Lost> lost;
  bool gave_up = false;
};

using SupervisorSelf = caf::stateful_actor<SupervisorState>;

// Asked again every kRestartRetry while the task stays lost: its old
// process may not have exited yet, or the new one may die too.
void BringBack(SupervisorSelf* self, const std::string& task) {
  SupervisorState& st = self->state;
  auto it = st.lost.find(task);
  if (it == st.lost.end() || st.gave_up || !st.options.restart_task) return;
  const auto lost_for = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - it->second.since);
  if (st.options.restart_task(task, lost_for)) {
    it->second.restarted = true;
    it->second.since = Clock::now();  // the new process's time to come up
  }
  // Once a new process runs, the master tries it at once, and every round
  // until it answers, beside its own backoff (whose next try may be
  // seconds away, or wait on a connection to the old, hung process).
  if (it->second.restarted) self->send(st.master, reattach_atom::value, task, kReattachOnce);
  self->delayed_send(self, kRestartRetry, restart_atom::value, task);
}

// Counts the loss against the restart limit (Erlang's restart intensity):
// past it, the master gives up rather than restart for ever.
void Lost(SupervisorSelf* self, const std::string& task, const std::string& why) {
  SupervisorState& st = self->state;
  if (st.gave_up) return;
  const auto now = Clock::now();
  const auto window = std::chrono::duration<double>(st.options.restart_window_secs);
  st.losses.push_back(now);
  while (now - st.losses.front() > window) st.losses.pop_front();
  if (st.options.max_restarts >= 0 && static_cast<int>(st.losses.size()) > st.options.max_restarts) {
    st.gave_up = true;
    self->send(st.master, give_up_atom::value,
               ToCafError(errors::Aborted(st.losses.size(), " restarts within ",
                                          st.options.restart_window_secs, " s (the limit is ",
                                          st.options.max_restarts, "); the last failure: ", why)));
    return;
  }
  st.lost[task] = SupervisorState::Lost{now};
  BringBack(self, task);
}

caf::behavior SupervisorBehavior(SupervisorSelf* self, SupervisionOptions options) {
  self->state.options = std::move(options);
  self->set_down_handler([self](caf::down_msg&) { self->quit(); });
  return {
      [self](watch_atom, const caf::actor& master) {
        self->state.master = master;
        self->monitor(master);
      },
      [self](task_lost_atom, const std::string& task, const std::string& why) {
        // The master may lose a task before its watch message arrives.
        if (!self->state.master) self->state.master = caf::actor_cast<caf::actor>(self->current_sender());
        Lost(self, task, why);
      },
      [self](task_back_atom, const std::string& task) { self->state.lost.erase(task); },
      [self](restart_atom, const std::string& task) { BringBack(self, task); },
  };
}

}  // namespace

caf::actor SpawnSupervisor(caf::actor_system& system, SupervisionOptions options) {
  return system.spawn<caf::detached>(SupervisorBehavior, std::move(options));
}

void Supervise(const caf::actor& supervisor, const caf::actor& master) {
  caf::anon_send(supervisor, watch_atom::value, master);
}

}  // namespace tact

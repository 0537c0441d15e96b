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
  MasterRestart master_restart;
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

// Counts a restart (of a task or of the master) against the limit
// (Erlang's restart intensity): past it, returns why the supervisor gives
// up rather than restart for ever; OK within it.
Status CountRestart(SupervisorSelf* self, const std::string& why) {
  SupervisorState& st = self->state;
  const auto now = Clock::now();
  const auto window = std::chrono::duration<double>(st.options.restart_window_secs);
  st.losses.push_back(now);
  while (now - st.losses.front() > window) st.losses.pop_front();
  if (st.options.max_restarts < 0 || static_cast<int>(st.losses.size()) <= st.options.max_restarts) {
    return Status::OK();
  }
  st.gave_up = true;
  return errors::Aborted(st.losses.size(), " restarts within ", st.options.restart_window_secs,
                         " s (the limit is ", st.options.max_restarts, "); the last failure: ", why);
}

void Lost(SupervisorSelf* self, const std::string& task, const std::string& why) {
  SupervisorState& st = self->state;
  if (st.gave_up) return;
  Status limit = CountRestart(self, why);
  if (!limit.ok()) {
    self->send(st.master, give_up_atom::value, ToCafError(limit));
    return;
  }
  st.lost[task] = SupervisorState::Lost{Clock::now()};
  BringBack(self, task);
}

void Watch(SupervisorSelf* self, const caf::actor& master) {
  self->state.master = master;
  self->monitor(master);
}

// The master ended. Normally (the session closed): so does the supervisor.
// Abnormally: a new master takes its place, within the restart limit. The
// tasks it had lost are still being brought back, and reported to the new
// one as they come.
void MasterDown(SupervisorSelf* self, const caf::down_msg& down) {
  SupervisorState& st = self->state;
  if (down.source != st.master.address()) return;
  if (down.reason == caf::exit_reason::normal || down.reason == caf::exit_reason::user_shutdown ||
      st.gave_up || !st.master_restart.restart) {
    self->quit();
    return;
  }
  const std::string why = "the session's master ended (" + self->system().render(down.reason) + ")";
  Status limit = CountRestart(self, why);
  if (!limit.ok()) {
    if (st.master_restart.give_up) st.master_restart.give_up(limit);
    self->quit();
    return;
  }
  caf::actor next = st.master_restart.restart();
  if (!next) {  // the session closed meanwhile
    self->quit();
    return;
  }
  Watch(self, next);
}

caf::behavior SupervisorBehavior(SupervisorSelf* self, SupervisionOptions options,
                                 MasterRestart master_restart) {
  self->state.options = std::move(options);
  self->state.master_restart = std::move(master_restart);
  self->set_down_handler([self](caf::down_msg& down) { MasterDown(self, down); });
  return {
      [self](watch_atom, const caf::actor& master) { Watch(self, master); },
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

caf::actor SpawnSupervisor(caf::actor_system& system, SupervisionOptions options,
                           MasterRestart master_restart) {
  return system.spawn<caf::detached>(SupervisorBehavior, std::move(options), std::move(master_restart));
}

void Supervise(const caf::actor& supervisor, const caf::actor& master) {
  caf::anon_send(supervisor, watch_atom::value, master);
}

}  // namespace tact

// The supervisor of a session (paper 3.3): the root of the session's actor
// tree, over the master and, through it, the tasks (docs/supervision.md
// draws the tree).
//
// The master ending abnormally (a bug, or CrashMaster's fault hook) is
// restarted with MasterRestart::restart, which spawns a new master with
// the session's options and graph and makes it the one the client's calls
// go to; the Runs the old one held answer Unavailable, and the new one
// registers the partitions again when Runs need them. A master that ends
// normally (the session closed) ends the supervisor.
//
// The master reports each task it loses (task_lost_atom, task, why as a
// string) and each it attaches again (task_back_atom, task). The
// supervisor brings a lost task back with SupervisionOptions::restart_task,
// asking again until the master has it back; the master meanwhile tries
// the task's address with backoff, so a task of someone else's cluster
// comes back the same way once its process is restarted there. Past the
// restart limit it tells the master to give up (give_up_atom, why as a
// caf::error): the session's Runs then fail with that status instead of
// the run looping. Master restarts count against the same limit; past it,
// MasterRestart::give_up is told instead of a restart.
//
// Include only from actors/*.cc: it pulls in CAF.
#pragma once

#include <caf/all.hpp>

#include <functional>

#include "actors/supervision_options.h"
#include "graph/status.h"

namespace tact {

struct MasterRestart {
  // Spawns and returns a new master that the client's calls go to.
  std::function<caf::actor()> restart;
  // Told instead, past the restart limit: the client's calls fail with it.
  std::function<void(Status)> give_up;
};

// A detached actor (restart_task may fork a process). It ends when the
// master it supervises ends normally.
caf::actor SpawnSupervisor(caf::actor_system& system, SupervisionOptions options,
                           MasterRestart master_restart);

// Starts supervising `master` (which must have been given the supervisor
// in its MasterOptions).
void Supervise(const caf::actor& supervisor, const caf::actor& master);

}  // namespace tact

// The supervisor of a cluster session (paper 3.3; issue 7): the root of the
// session's actor tree, over the master and, through it, the tasks.
//
// The master reports each task it loses (task_lost_atom, task, why as a
// string) and each it attaches again (task_back_atom, task). The
// supervisor brings a lost task back with SupervisionOptions::restart_task,
// asking again until the master has it back; the master meanwhile tries
// the task's address with backoff, so a task of someone else's cluster
// comes back the same way once its process is restarted there. Past the
// restart limit it tells the master to give up (give_up_atom, why as a
// caf::error): the session's Runs then fail with that status instead of
// the run looping.
//
// Include only from actors/*.cc: it pulls in CAF.
#pragma once

#include <caf/all.hpp>

#include "actors/supervision_options.h"

namespace tact {

// A detached actor (restart_task may fork a process). It ends with
// `master`, which it monitors.
caf::actor SpawnSupervisor(caf::actor_system& system, SupervisionOptions options);

// Starts supervising `master` (which must have been given the supervisor
// in its MasterOptions).
void Supervise(const caf::actor& supervisor, const caf::actor& master);

}  // namespace tact

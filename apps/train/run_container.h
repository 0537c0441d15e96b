// The container a cluster run of `tact train` keeps its variables, queues
// and readers in on the tasks, so that two runs on one cluster do not
// train each other's variables.
//
// Why: TensorFlow's default (SessionOptions's, kept for C++ users) puts a
// cluster's variables in the tasks' shared default container, where they
// outlive the client, as on a parameter server. Two `tact train` runs
// started on one cluster then each re-initialised and updated the same
// variables, and both ended with wrong results and no word (session 18:
// two runs that alone give 4a989f0fb3b92ca6 both ended with
// 400ae4d2dac84089).
#pragma once

#include <string>

#include "actors/cluster_spec.h"
#include "actors/session.h"

namespace tact::apps {

// A run with a checkpoint directory gets a container named after the
// directory, so that a run resumed there (after its client died) finds
// what the old one left on the tasks and restores over it; only one run
// at a time holds a directory (checkpoint/dir_lock.h). A run without one
// gets a fresh name.
std::string RunContainer(const std::string& checkpoint_dir);

// Drops `container` on every task of `cluster` (ResetContainer on each
// task's CPU:0), as a run's last act. A run that fails first leaves its
// container on the tasks until they restart, or until a run resumed from
// its checkpoint directory ends.
Status ReleaseRunContainer(Session& session, const ClusterSpec& cluster, const std::string& container);

}  // namespace tact::apps

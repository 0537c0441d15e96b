// Fault injection as a feature (issue 7): what `tact train --fault ...`
// asks for, parsed, and done to a local cluster.
//
//   kill:worker:1@step=150      SIGKILL of that task's process before step 150
//   kill:ps:0@checkpoint        the same, while the next checkpoint is written
//   drop:worker:0@step=200      its connections cut (SIGUSR1 makes the worker
//                               shut down every connected socket): the
//                               process lives on, and the master and its
//                               peers connect to it again
//   crash:worker:0@step=200     one of its actors ends as a bug would
//                               (SIGUSR2): the worker exits, to be started
//                               afresh
//   pause:worker:0@step=200     the process stopped (SIGSTOP) until the
//                               master has given it up, then resumed: a hung
//                               task, or a network partition that heals
//   corrupt-latest-checkpoint@step=300
//                               bytes of the newest checkpoint's first shard
//                               flipped, so that restoring must fall back
//   crash-master@step=250       the session's master actor ends as a bug
//                               would as it takes step 250's Run
//                               (CrashMaster, actors/session.h): its
//                               supervisor starts another
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "apps/cluster/local_cluster.h"
#include "graph/status.h"

namespace tact {
class Session;
}  // namespace tact

namespace tact::apps {

struct Fault {
  enum class Kind { kKill, kDrop, kPause, kCrash, kCorruptLatestCheckpoint, kCrashMaster };
  Kind kind = Kind::kKill;
  std::string task;  // "/job:worker/replica:0/task:1" (kill, drop, pause and crash)
  int64_t step = 0;  // injected before this step runs
  bool at_checkpoint = false;  // instead: while the next checkpoint is written
  std::string spec;  // as given, for messages
};

// InvalidArgument naming the spec and what is wrong with it.
StatusOr<Fault> ParseFault(const std::string& spec);

// `count` faults drawn from `seed` (the same seed, the same faults): kills,
// drops and pauses of the `tasks` and corruptions of the newest checkpoint, at
// steps in [1, steps), as specs ParseFault reads.
std::vector<std::string> ChaosFaults(uint64_t seed, int count, const std::vector<std::string>& tasks,
                                     int64_t steps);

// What faults are done to; each kind needs only its own part.
struct FaultTarget {
  LocalCluster* cluster = nullptr;  // kill, drop, pause, crash
  Session* session = nullptr;       // crash-master
  std::string checkpoint_dir;       // corrupt-latest-checkpoint
  int pause_ms = 3000;              // how long a paused process stays stopped
};

// Does `fault` to `target`: FailedPrecondition, naming the fault, when the
// part it needs is missing. A pause returns at once; the stopped process
// is resumed pause_ms later.
Status InjectFault(const Fault& fault, const FaultTarget& target);

}  // namespace tact::apps

// The task actor of a worker process (actors/worker.h): the one actor a
// worker publishes. It speaks for the task to masters and to the other
// tasks:
//
//   WireDescribe                   -> WireTaskInfo, once the proof shows
//                                     the cluster's secret (master)
//   WireRegisterPartition          -> the partition actor (master)
//   WireDeregisterPartition        -> nothing; the partition goes, if the
//                                     sender registered it (master)
//   WireIntroduce                  -> WireIntroduced, once connected to every
//                                     task whose name sorts after this
//                                     one's, after dropping the tasks in
//                                     `forget` (a restarted task's old
//                                     process; or, to a task cut off and
//                                     attached again, the tasks after it)
//                                     and those it knows in another
//                                     incarnation than `current` (restarted
//                                     while no master watched) (master)
//   WireHello                      -> a lower task that connected here (the
//                                     sender); answers with this task's
//                                     WireTaskInfo (its link port)
//   WireRendezvousTensor           -> a Send of another task, for a Recv here
//   WireHealthPing                 -> the ping, with this task's incarnation
//
// Only the tasks of the cluster spec may say hello, so the peer table holds
// at most one entry per task; a master's "forget" drops one that is gone.
//
// Each pair of tasks shares one connection, made by the lower-named task
// when a master introduces the cluster, before any step: CAF closes a
// second connection between two nodes as redundant, and over TLS that
// closing takes the first one down with it.
//
// Include only from actors/*.cc: it pulls in CAF.
#pragma once

#include <caf/all.hpp>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "actors/cluster_spec.h"

namespace tact {

class RendezvousMgr;

// Another task as this one reaches it: its task actor, and where its
// tensor links listen (port 0: it takes tensors through CAF only).
struct Peer {
  caf::actor actor;
  std::string host;
  uint16_t link_port = 0;
  uint64_t epoch = 0;  // new with every Add: a peer met again gets new links
  // Of its process, as it answered this task's hello; 0 for a peer that
  // said hello here (a lower task, which a master never asks about).
  uint64_t incarnation = 0;
};

// The other tasks, by task name: read by Send kernels on device threads,
// written by the task actor.
class PeerTable {
 public:
  Peer Find(const std::string& task);  // an empty actor when unknown
  void Add(const std::string& task, Peer peer);
  void Remove(const std::string& task);

 private:
  std::mutex mu_;
  std::map<std::string, Peer> peers_;
  uint64_t epochs_ = 0;
};

struct TaskActorConfig {
  std::string task;
  uint64_t incarnation = 0;
  ClusterSpec cluster;
  std::map<std::string, caf::actor> devices;  // device actors by full name
  std::shared_ptr<PeerTable> peers;
  std::shared_ptr<RendezvousMgr> rendezvous;
  uint16_t link_port = 0;  // of this task's tensor links; 0: none
  // Filled as partitions register: their device actors, by partition
  // handle, for steps that come through CAF rather than on a link.
  std::map<std::string, caf::actor> partition_devices;
  // The partitions each master registered here (device actor, handle), until
  // it deregisters them. The task monitors the master, and drops them when
  // it is gone: a client that closed or died never runs them again (a
  // master that reconnects after a cut has forgotten them and registers
  // anew), and a parameter server serving one run after another would keep
  // every run's graphs.
  std::map<caf::actor_addr, std::vector<std::pair<caf::actor, std::string>>> master_partitions;
};

caf::actor SpawnTaskActor(caf::actor_system& system, TaskActorConfig config);

}  // namespace tact

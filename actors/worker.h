// A worker task of a cluster (paper 3.3): a process that hosts its devices
// as actors and publishes them under one task actor, which CAF's middleman
// makes reachable at the task's address in the cluster spec. `tact worker`
// runs one; tests and `tact train` start them as child processes.
//
// The task actor answers the master:
//   WireDescribe           -> WireTaskInfo (task name, incarnation, devices),
//                             or Unauthenticated when the proof does not
//                             show the cluster's secret;
//   WireRegisterPartition  -> the partition actor, after connecting to every
//                             task the partition's Sends deliver to;
//   WireHealthPing         -> the ping, with this task's incarnation;
// and takes WireRendezvousTensor from other tasks' Sends. Steps never pass
// tensors through the master: a Send here goes straight to the task of
// its Recv.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "actors/cluster_spec.h"
#include "graph/status.h"

namespace tact {

struct WorkerOptions {
  ClusterSpec cluster;
  std::string job;
  int task = 0;
  std::map<std::string, int> device_count = {{"CPU", 1}};
  int intra_op_threads = 2;
  // The interface to bind. Empty: the host of this task's address in the
  // cluster spec ("127.0.0.1" there binds loopback only).
  std::string bind_host;
  // The cluster's secret (actors/wire_auth.h): messages not signed with it
  // are refused. At least 16 characters.
  std::string secret;
  ClusterTls tls;
  // Called (on a CAF thread) when one of the worker's actors ends
  // abnormally (a bug): the task can no longer serve its partitions
  // truthfully. `tact worker` then exits, so that whoever supervises it
  // starts it afresh (Erlang's "let it crash"); its steps fail meanwhile,
  // as for any lost task.
  std::function<void(const Status& why)> on_actor_failure;
};

class Worker {
 public:
  // Creates the devices, binds the task's port and publishes the task
  // actor. Errors name the task: one not in the cluster, a port in use.
  static StatusOr<std::unique_ptr<Worker>> Start(const WorkerOptions& options);
  virtual ~Worker() = default;

  virtual const std::string& task() const = 0;   // "/job:J/replica:0/task:T"
  virtual uint16_t port() const = 0;
  virtual uint64_t incarnation() const = 0;
  // Steps that hold a rendezvous in this task: 0 once no step runs (one
  // left behind is a leak; `tact worker` prints it as it stops).
  virtual size_t RendezvousSteps() const = 0;
  // Returns after Stop (from another thread or a signal handler's thread).
  virtual void Wait() = 0;
  virtual void Stop() = 0;
  // Fault injection: ends the first device actor as a bug would (CAF's
  // exit reason kill), which on_actor_failure then hears of.
  virtual void CrashAnActor() = 0;
};

}  // namespace tact

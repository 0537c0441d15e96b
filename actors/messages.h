// The runtime's actors and what they say to each other (paper 3;
// docs/actors.md has the table of every message):
//
//   client --RunCall--> master --RunStep, AbortStep--> partition --StepDone--> master
//                          |                              ^
//                          +--RegisterPartition--> device actor (spawns partitions
//                          |  DeregisterPartition     and their endpoints; answers
//                          |                          PartitionRegistered)
//                          +--task lost / back--> supervisor --restart--> master
//
//   _Send kernel --SendCall--> Send endpoint --WireRendezvousTensor--> Recv endpoint
//                              (another task: a LinkFrame     AbortStep --^  ^
//                               on the tensor link)              _Recv kernel --RecvCall
//
// Between the master, the device actors and the partitions every message
// is one of actors/wire.h's types (schemas/runtime.capnp): inside a process
// CAF hands them over as C++ objects holding refcounted tensors, so tensor
// bytes are never copied; across processes they serialise once through
// Cap'n Proto. Between processes a step's RunStep, AbortStep and StepDone
// go on the tasks' tensor links as those messages' bytes
// (actors/step_link.h), and a Send's tensor for another task goes there as
// a LinkFrame whose tensor bytes are segments of their own
// (actors/link_frame.h); CAF's connection keeps registration, health
// pings and the task actors' talk. Only the client's own calls (RunCall,
// ExtendCall) and a kernel's calls on its endpoints (SendCall, RecvCall)
// are plain in-process objects, since a client and a kernel are not
// actors. Every process counts what it decodes by type
// (actors/wire_counts.h); tests/distributed/wire_types_test.cc checks a
// two-process step's messages with it.
//
// A registration is answered with a PartitionRegistered, and a failed
// request with a CAF error whose payload is a Failure: both Cap'n Proto
// between processes. Not Cap'n Proto: CAF's own system messages.
//
// Include only from actors/*.cc: it pulls in CAF.
#pragma once

#include <atomic>
#include <caf/all.hpp>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "actors/cluster_spec.h"
#include "actors/once_reply.h"
#include "actors/wire_caf.h"
#include "graph/graph_def.h"
#include "kernels/rendezvous.h"
#include "placement/placer.h"

namespace tact {

class MasterLinks;
class Partition;
class RendezvousMgr;
class TaskSteps;

// The master's timer for MasterOptions::operation_timeout_ms, and the one
// after it for the StepDones that even the abort did not bring.
using timeout_atom = caf::atom_constant<caf::atom("timeout")>;
using abandon_atom = caf::atom_constant<caf::atom("abandon")>;
// Closing a session: the master refuses new Runs (Cancelled) and aborts the
// running steps, each of which still answers its client.
using close_atom = caf::atom_constant<caf::atom("close")>;
// The fault hook CrashMaster (actors/session.h): the master ends as a bug
// would as it takes the next Run, and its supervisor starts another.
using crash_atom = caf::atom_constant<caf::atom("crash")>;
// The master's timers for health pings, and for trying to reach a lost
// task again.
using health_atom = caf::atom_constant<caf::atom("health")>;
using reattach_atom = caf::atom_constant<caf::atom("reattach")>;
// reattach_atom's attempt for a single try, with no backoff after it (the
// supervisor's, once it has started the task's process).
inline constexpr int kReattachOnce = -1;
// Master -> supervisor: a task was lost / attached again. Supervisor ->
// master: give up (the restart limit was passed). The master's timer for
// a Run waiting for a lost task. The supervisor's timer for asking again
// to restart a lost task.
using task_lost_atom = caf::atom_constant<caf::atom("tasklost")>;
using task_back_atom = caf::atom_constant<caf::atom("taskback")>;
using give_up_atom = caf::atom_constant<caf::atom("giveup")>;
using park_timeout_atom = caf::atom_constant<caf::atom("parkend")>;
using restart_atom = caf::atom_constant<caf::atom("restart")>;
// A tensor the master sent on a link (actors/bulk_transfer.h) did not
// leave: the step or registration waiting for it fails.
using bulk_failed_atom = caf::atom_constant<caf::atom("bulkfail")>;
// Task actor -> itself: a registration's linked tensors are all there (or
// failed), or its wait for them ran out.
using linked_atom = caf::atom_constant<caf::atom("linked")>;
using linked_timeout_atom = caf::atom_constant<caf::atom("linkwait")>;
// Task actor -> device actor: the master that registered a partition is
// gone, or has deregistered it, so the partition goes (actors/task_actor.h).
// With (drop_partition_atom, handle, why): a non-empty `why` says the master
// is gone, and the partition's unended steps are aborted (Unavailable, with
// that reason, as a lost task fails a step).
using drop_partition_atom = caf::atom_constant<caf::atom("droppart")>;

// A client's Run, answered through `reply` (once, from a CAF thread), so
// that no CAF thread blocks and the client waits on its own latch rather
// than a scoped_actor round trip.
struct RunCall {
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
  StepStats* stats = nullptr;
  // Follow the newest running step of the same signature
  // (Session::StartFollowing).
  bool follow = false;
  int64_t timeout_ms = 0;  // RunOptions::timeout_ms
  OnceReply<StatusOr<std::vector<Tensor>>> reply;
};

struct ExtendCall {
  GraphDef graph;
  OnceReply<Status> reply;
};

// A Recv kernel's call on its endpoint (actors/endpoints.h), answered once
// with the step's tensor or why there is none. Destroyed unanswered (its
// endpoint ended first: its partitions were deregistered, or its device
// actor ended), it answers Unavailable, so that no step waits for ever and
// the step's master takes it for a lost task's.
struct RecvCall {
  RecvCall(int64_t step, std::string k, Rendezvous::DoneCallback d)
      : step_id(step), key(std::move(k)), done(std::move(d)) {}
  ~RecvCall();
  void Answer(const Status& status, const Tensor& tensor);

  int64_t step_id;
  std::string key;
  Rendezvous::DoneCallback done;
};

// A Send kernel's tensor for its endpoint, answered once it has been
// handed on; destroyed unanswered, it answers as RecvCall does.
struct SendCall {
  SendCall(WireRendezvousTensor t, Rendezvous::SentCallback d) : tensor(std::move(t)), done(std::move(d)) {}
  ~SendCall();
  void Answer(const Status& status);

  WireRendezvousTensor tensor;
  Rendezvous::SentCallback done;
};

}  // namespace tact

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<tact::RunCall>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<tact::ExtendCall>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<tact::RecvCall>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<tact::SendCall>)

namespace tact {

// A device actor: owns the partitions registered on `device` (which must
// outlive it). It answers
//   WireRegisterPartition -> the new partition actor, or the error naming
//                            the handle (a graph without a kernel, a wrong
//                            device, a handle registered twice);
//   WireHealthPing        -> the same ping, with this task's incarnation.
// WireDeregisterPartition (from a master in this process) and
// drop_partition_atom (from its task actor) end a partition.
// Its partitions share `rendezvous` with every other partition of this
// task, and a worker's take RunSteps from its links through `steps`.
caf::actor SpawnDeviceActor(caf::actor_system& system, Device* device, uint64_t incarnation,
                            std::shared_ptr<RendezvousMgr> rendezvous,
                            std::shared_ptr<TaskSteps> steps = nullptr);

// A partition actor: runs `partition` once per WireRunStep (off the CAF
// threads for every expensive kernel) and answers the sender with a
// WireStepDone; WireAbortStep fails that step's pending and future Recvs.
// Spawned by a device actor, linked to it.
caf::actor SpawnPartition(caf::event_based_actor* device_actor, std::shared_ptr<Partition> partition);

// An endpoint (actors/endpoints.h) whose last partition was deregistered
// ends on this, normally: its owner, linked to it, goes on.
using endpoint_end_atom = caf::atom_constant<caf::atom("endpend")>;

// A Recv endpoint (actors/endpoints.h) for rendezvous key `key`: takes
// WireRendezvousTensor (a Send's tensor for a step), RecvCall (its Recv
// kernel asking for a step's tensor) and WireAbortStep, and answers each
// RecvCall once the step's tensor is there. Linked to `owner`.
caf::actor SpawnRecvEndpoint(caf::event_based_actor* owner, std::string key);

// Where a Send endpoint hands its tensors on: to `recv_task` through
// `remote`, or, with no `remote`, to the Recv endpoint in this process
// that `find_recv` names. The Send endpoint looks it up at its first Send
// (the partition holding it may be registered after this one) and again
// whenever `recvs_ended`, the count of Recv endpoints ended in this
// process, has moved (it may have been deregistered and registered anew).
struct SendRoute {
  std::function<caf::actor()> find_recv;
  std::shared_ptr<const std::atomic<uint64_t>> recvs_ended;
  std::string recv_task;
  std::function<Status(const std::string& recv_task, int64_t step_id, const std::string& key,
                       const Tensor& tensor)>
      remote;
};

// A Send endpoint for `key`: takes SendCall, hands the tensor on by
// `route` and answers the call with how that went. Linked to `owner`.
caf::actor SpawnSendEndpoint(caf::event_based_actor* owner, std::string key, SendRoute route);

// Where the master places partitions: one device and its actor.
// In a cluster the actor is the device's task actor, which hands each
// registration on to the device.
struct DeviceEndpoint {
  std::string name;  // full device name
  caf::actor actor;
  std::string task;          // "/job:J/replica:R/task:T"
  uint64_t incarnation = 0;  // of the process hosting the device
  std::string host;          // where its task's tensor links listen, if it has them
  uint16_t link_port = 0;    // 0: none (a local device, or a TLS cluster)
};

struct MasterOptions {
  std::vector<DeviceEndpoint> devices;
  std::string container;                // of Variables that name none
  int64_t operation_timeout_ms = 0;     // a step running longer is aborted; 0: never
  // Remote tasks: each is pinged this often, and a task that has not
  // answered within health_timeout_ms is lost (0: no pings; a local
  // session's devices cannot be lost).
  int64_t health_interval_ms = 0;
  int64_t health_timeout_ms = 0;
  // Where each remote task listens: a lost task is tried again there, with
  // backoff, and attached anew once it answers (a restarted process).
  std::map<std::string, TaskAddress> task_addresses;
  // SessionOptions' placement and partitioning switches.
  bool allow_soft_placement = false;
  bool schedule_recvs = false;
  bool lossy_float_transfer = false;
  int64_t placement_measure_steps = 0;
  double placement_replace_threshold = 0.1;
  PlacementStrategy placement_strategy = PlacementStrategy::kGreedy;
  double placement_min_spread_gain = 0.1;
  // Told of every task lost and attached again (actors/supervisor.h).
  caf::actor supervisor;
  // SupervisionOptions' callbacks of the same names.
  std::function<void(const std::string& task, const Status& why)> on_task_lost;
  std::function<void(const std::string& task)> on_task_back;
  // How long a Run that needs a lost task waits for it (0: fails at once).
  int64_t task_wait_ms = 0;
  // The master's end of the tasks' links (actors/master_links.h): large
  // tensors and step messages; none for a local session or a TLS cluster,
  // whose messages and tensors all go through CAF.
  std::shared_ptr<MasterLinks> links;
};

// The master actor of a session: keeps the graph, prunes and registers one
// partition per (feeds, fetches, targets) signature, and runs steps:
// each client call arrives as a shared_ptr to ExtendCall or RunCall, and
// close_atom ends the session.
caf::actor SpawnMaster(caf::actor_system& system, MasterOptions options);

}  // namespace tact

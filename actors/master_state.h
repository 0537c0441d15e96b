// The master actor's state, shared by its files: master.cc (Extend, Run,
// registration, steps) and master_tasks.cc (the tasks of a cluster: health,
// loss and reattachment).
//
// Include only from actors/*.cc: it pulls in CAF.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "actors/messages.h"
#include "graph/graph.h"
#include "graph/subgraph.h"
#include "placement/cost_model.h"

namespace tact {

struct RegisteredPartition {
  std::string handle;
  caf::actor actor;                 // set once its device actor has answered
  std::vector<std::string> feeds;   // "node:port" this partition receives from the client
  std::string task;                 // of its device
  std::string device;
};

struct Signature {
  SubgraphSpec spec;                 // the Run's feeds, fetches and targets
  uint64_t generation = 0;           // tells its registration answers from a forgotten one's
  int unregistered = 0;              // partitions whose device actor has not answered
  std::vector<RegisteredPartition> partitions;
  std::vector<std::pair<std::string, DataType>> feed_types;  // feed name -> expected dtype
  std::vector<std::shared_ptr<RunCall>> waiting;  // Runs queued behind the registration
  // Placement from measured costs (MasterOptions::placement_measure_steps):
  // where the plan put each node, how many steps were measured, and whether
  // it was placed again already (once per signature).
  std::map<std::string, std::string> assignment;
  int64_t measured_steps = 0;
  bool replanned = false;
};

struct PendingStep {
  std::shared_ptr<RunCall> call;
  std::string signature;  // its key, and the generation it ran on
  uint64_t generation = 0;
  bool measured = false;  // its stats feed the measured cost model
  int64_t timeout_ms = 0;  // after which it is aborted; 0: never
  std::vector<RegisteredPartition> partitions;
  std::set<std::string> answered;  // handles
  int outstanding = 0;  // partitions yet to answer
  Status status;        // the first error
  std::map<std::string, Tensor> fetched;  // by "node:port"
  int64_t follower = 0;  // the step sent to follow this one (RunCall::follow)
  // Calls to follow this one that found their signature placed anew (other
  // partitions, which cannot wait for this one's): run once it has ended.
  std::vector<std::shared_ptr<RunCall>> deferred;
};

// One try at attaching the process that answers at a lost task's address,
// from its connection to the last answer (actors/master_tasks.cc). It ends
// once: attached, failed (a request's error or timeout), or cut (the
// connection to the process broke).
struct AttachTry {
  std::string task;
  int attempt = 0;  // of the backoff (kReattachOnce: the supervisor's)
  bool ended = false;
  bool attaching = false;  // it holds the task's entry in `attaching`
};

// A Run that needs a lost task, waiting for it to be attached again.
struct ParkedRun {
  std::shared_ptr<RunCall> call;
  std::chrono::steady_clock::time_point deadline;
  Status why;  // the task's loss
};

struct MasterState {
  // A master that ends with steps pending (a crash, a bug) takes back what
  // the links keep to answer them on arrival: it holds their clients'
  // calls, which answer Unavailable only once dropped (actors/once_reply.h);
  // a Run in flight when its master died waited for ever. It aborts those
  // steps where they run (a Dequeue of one took the next element from a
  // live consumer) and drops the partitions it registered in this process;
  // a worker does both for its own when it sees the master gone.
  // actors/master_state.cc.
  ~MasterState();

  MasterOptions options;
  GraphDef graph_def;
  std::shared_ptr<Graph> graph = std::make_shared<Graph>();
  std::map<std::string, Signature> signatures;
  uint64_t next_generation = 1;
  std::map<int64_t, PendingStep> pending;
  // A step id's low 32 bits count this session's steps from 1 (seeded
  // random ops draw from that count, so a session's Nth step draws the
  // same numbers in every run); its high bits are random, so that two
  // masters sharing a worker never use the same id there.
  int64_t next_step = 1;
  std::map<std::string, caf::actor> tasks;   // remote tasks, watched for health
  std::map<std::string, Status> lost_tasks;  // and why each was lost
  std::set<std::string> attaching;           // lost tasks being attached now
  // The tries under way, by the actor of the process each talks to, which
  // they monitor: a connection cut fails no request in flight, so its down
  // message ends them.
  std::multimap<caf::actor_addr, std::shared_ptr<AttachTry>> tries;
  std::map<std::string, uint64_t> attachments;  // times each was attached again
  uint64_t health_sequence = 0;
  // Partition handles are unique per master ("partition_<master>_<n>"),
  // since several masters may register on one worker.
  std::string partition_prefix;
  int64_t next_partition = 1;
  // The rendezvous ids of registrations whose tensors travel by link
  // (actors/bulk_transfer.h): negative, so that no step has one, with
  // random high bits as steps have, since a task forgets no id it has
  // finished; and the signature each belongs to, for a send that fails.
  int64_t next_linked_step = -1;
  std::map<int64_t, std::pair<std::string, uint64_t>> linked_registrations;
  // The partitions of forgotten signatures (placed again, or a task they
  // spanned lost), by generation, until the steps still running on them
  // end; then each is deregistered where it lives (actors/master.cc).
  std::map<uint64_t, std::vector<RegisteredPartition>> retired;
  std::map<uint64_t, ParkedRun> parked;
  uint64_t next_parked = 1;
  bool closed = false;
  // CrashMaster: the next Run ends this master (crash_atom).
  bool crash_at_next_run = false;
  Status failed;  // the supervisor gave up: every Run fails with this
  // What measured steps reported, by node name (placement_measure_steps).
  std::unique_ptr<MeasuredCostModel> measured_costs;
};

using Self = caf::stateful_actor<MasterState>;

// "/job:J/replica:R/task:T" of a full device name: partitions with the same
// one run in one process and share its rendezvous.
std::string TaskOf(const std::string& device);

// Whether tensors for `d` can travel on its task's link.
bool HasLink(const MasterState& st, const DeviceEndpoint& d);
// Sends `tensor` to the rendezvous of `step_id` in d's task on its link: at
// once if the link is open, else queued on the task's lane, whose failure
// comes back to the master as bulk_failed_atom.
void SendByLink(Self* self, const DeviceEndpoint& d, int64_t step_id, const std::string& key,
                const Tensor& tensor);

// A partition's answer; the last one of a step answers the client.
void FinishStep(Self* self, WireStepDone& done);
// Fails what is still running of a step everywhere; its StepDones follow.
void AbortStep(Self* self, int64_t step_id, const Status& status);

// The signature `sig` is being forgotten: its partitions are deregistered
// where they live, now or once the last step running on them has ended.
void Retire(Self* self, const Signature& sig);

// A Run from the start (a signature it waited for was dropped).
void RunAgain(Self* self, std::shared_ptr<RunCall> call);
// Runs again the Runs that wait for lost tasks (a task is back).
void RunParked(Self* self);

// A task is lost: its steps fail with `why`, and it is tried again.
void TaskLost(Self* self, std::string task, Status why);

// Starts watching the tasks of options.devices (monitors and pings).
void WatchTasks(Self* self);
// The behaviour's handlers for the master's timers.
void CheckHealth(Self* self);
// Tries to attach a lost task again: attempt N is followed, on failure, by
// attempt N + 1 after a backoff; kReattachOnce (messages.h) is a single try.
void Reattach(Self* self, const std::string& task, int attempt);

}  // namespace tact

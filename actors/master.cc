// The master actor of a session (paper 3): it owns the client's graph, and
// per distinct (feeds, fetches, targets) it prunes the graph
// (graph/subgraph.h) and registers the partition with its device actor,
// once; each Run is then one WireRunStep per partition and one WireStepDone
// back from each. Nothing here computes or waits: registration is a
// request whose answer arrives as a message, and Runs that come meanwhile
// queue behind it.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <type_traits>

#include "actors/bulk_transfer.h"
#include "actors/master_links.h"
#include "actors/master_run_call.h"
#include "actors/master_state.h"
#include "actors/measured_costs.h"
#include "actors/partition.h"
#include "actors/send_batch.h"
#include "graph/logging.h"
#include "graph/subgraph.h"
#include "placement/plan.h"

namespace tact {
namespace {

// A device actor answers at once unless its process is gone; this only
// bounds how long a lost answer can hold the Runs queued behind it.
constexpr auto kRegisterTimeout = std::chrono::seconds(60);

Status Cancelled() { return errors::Cancelled("the session was closed"); }

const DeviceEndpoint* Endpoint(const MasterState& st, const std::string& device) {
  for (const DeviceEndpoint& d : st.options.devices) {
    if (d.name == device) return &d;
  }
  return nullptr;
}

// Where a step's message goes through CAF: the partition actor when it is
// in this process, else the actor of its device's task or device, which
// hands it on by partition handle (the registration's answer, a
// PartitionRegistered, carries no handle on an actor in another process).
caf::actor PartitionOrDevice(const RegisteredPartition& p, const DeviceEndpoint* endpoint) {
  if (p.actor || endpoint == nullptr) return p.actor;
  return endpoint->actor;
}

// Sends a RunStep or AbortStep for d's task on its link (a RunStep told
// to answer on this master's), opening the link first if need be; false,
// and nothing sent, when the task has none (actors/step_link.h). A task
// with a link never gets a RunStep through CAF, so its StepDone, whose
// fetches may be large, never travels there either.
template <typename M>
bool SendStepMessage(Self* self, const DeviceEndpoint& d, int64_t step_id, const char* key, M message) {
  MasterState& st = self->state;
  if (!HasLink(st, d)) return false;
  if constexpr (std::is_same_v<M, WireRunStep>) {
    message.reply_port = st.options.links->port();
    message.reply_epoch = st.attachments[d.task];
  }
  StatusOr<Tensor> t = MessageTensor(message);
  // One that cannot be encoded fails in CAF's encoding too, with the error.
  if (!t.ok()) return false;
  SendByLink(self, d, step_id, key, *t);
  return true;
}

// When every partition of a step answers on a tensor link, the link's
// reader that takes the last StepDone answers the client (MasterLinks::
// AnswerOnArrival); the master still sees every StepDone. Not for a Run
// that collects stats: the master gathers them.
void AnswerOnArrival(MasterState& st, int64_t step_id, const std::shared_ptr<RunCall>& call,
                     const Signature& sig) {
  if (call->stats != nullptr || st.options.links == nullptr) return;
  for (const RegisteredPartition& p : sig.partitions) {
    const DeviceEndpoint* endpoint = Endpoint(st, p.device);
    if (endpoint == nullptr || !HasLink(st, *endpoint)) return;
  }
  st.options.links->AnswerOnArrival(step_id, static_cast<int>(sig.partitions.size()),
                                    [call](std::map<std::string, Tensor> fetched) {
                                      StatusOr<std::vector<Tensor>> out = Answer(*call, fetched);
                                      // A missing fetch is the master's to report.
                                      if (out.ok()) call->reply(std::move(out));
                                    });
}

// The newest step of signature `key` still running; null when none is.
PendingStep* NewestPending(MasterState& st, const std::string& key, int64_t* step_id) {
  for (auto it = st.pending.rbegin(); it != st.pending.rend(); ++it) {
    if (it->second.signature != key) continue;
    *step_id = it->first;
    return &it->second;
  }
  return nullptr;
}

void StartStep(Self* self, std::shared_ptr<RunCall> call, const std::string& key,
               const Signature& sig) {
  MasterState& st = self->state;
  if (st.closed) {
    call->reply(Cancelled());
    return;
  }
  Status s = CheckFeeds(*st.graph, *call, sig);
  if (!s.ok()) {
    call->reply(s);
    return;
  }
  int64_t after = 0;
  PendingStep* before = call->follow ? NewestPending(st, key, &after) : nullptr;
  if (before != nullptr && before->generation != sig.generation) {
    before->deferred.push_back(std::move(call));
    return;
  }
  const int64_t step_id = st.next_step++;
  // Enough measured steps in flight or done: the rest need not report.
  const bool measured = !sig.replanned && st.options.devices.size() > 1 &&
                        sig.measured_steps < st.options.placement_measure_steps;
  AnswerOnArrival(st, step_id, call, sig);
  // Each task's feeds and RunStep leave together (actors/send_batch.h).
  SendBatch batch;
  std::map<std::string, const Tensor*> feeds;
  for (const auto& [name, t] : call->feeds) feeds[Normalized(name)] = &t;
  for (const RegisteredPartition& p : sig.partitions) {
    WireRunStep run;
    run.step_id = step_id;
    run.handle = p.handle;
    run.collect_stats = call->stats != nullptr || measured;
    run.after_step = after;
    const DeviceEndpoint* endpoint = Endpoint(st, p.device);
    for (const std::string& f : p.feeds) {
      const Tensor& t = *feeds.at(f);
      if (endpoint != nullptr && HasLink(st, *endpoint) && TravelsByLink(t)) {
        SendByLink(self, *endpoint, step_id, FeedKey(p.device, f), t);
        run.linked_feeds.push_back(f);
      } else {
        run.feeds.emplace_back(f, t);
      }
    }
    if (endpoint == nullptr || !SendStepMessage(self, *endpoint, step_id, kRunStepKey, run)) {
      self->send(PartitionOrDevice(p, endpoint), std::move(run));
    }
  }
  PendingStep& step = st.pending[step_id];
  step.call = std::move(call);
  step.signature = key;
  step.generation = sig.generation;
  step.measured = measured;
  step.partitions = sig.partitions;
  step.outstanding = static_cast<int>(sig.partitions.size());
  if (before != nullptr) {
    before->follower = step_id;
    // Where `after` has already ended well, this step would run.
    if (!before->status.ok()) AbortStep(self, step_id, FollowerAborted(after, step_id, before->status));
  }
  step.timeout_ms = step.call->timeout_ms > 0 ? step.call->timeout_ms
                    : step.call->timeout_ms == 0 ? st.options.operation_timeout_ms
                                                 : 0;
  if (step.timeout_ms > 0) {
    self->delayed_send(self, std::chrono::milliseconds(step.timeout_ms), timeout_atom::value, step_id);
  }
}

// Asks the task (or local device actor) that holds each of `parts` to
// drop it. One that has not registered yet is dropped there if it does so
// later (its answer finds no signature, below), or refused (a linked one,
// actors/task_actor.cc); a task lost or restarted meanwhile holds none.
void Deregister(Self* self, const std::vector<RegisteredPartition>& parts) {
  for (const RegisteredPartition& p : parts) {
    const DeviceEndpoint* endpoint = Endpoint(self->state, p.device);
    if (endpoint != nullptr) self->send(endpoint->actor, WireDeregisterPartition{p.handle});
  }
}

// Whether a step of signature generation `generation` is running.
bool Running(const MasterState& st, uint64_t generation) {
  return std::any_of(st.pending.begin(), st.pending.end(),
                     [&](const auto& p) { return p.second.generation == generation; });
}

// A step of `generation` has ended: the last one of a retired generation
// takes its partitions with it.
void StepEnded(Self* self, uint64_t generation) {
  MasterState& st = self->state;
  auto retired = st.retired.find(generation);
  if (retired == st.retired.end() || Running(st, generation)) return;
  Deregister(self, retired->second);
  st.retired.erase(retired);
}

// The calls deferred until step `step_id` ended (PendingStep::deferred),
// now that it has, with `status`: they fail with it as a follower does.
void StartDeferred(Self* self, int64_t step_id, std::vector<std::shared_ptr<RunCall>>& deferred,
                   const Status& status) {
  for (auto& call : std::exchange(deferred, {})) {
    if (status.ok()) {
      RunAgain(self, std::move(call));
    } else {
      call->reply(
          errors::Aborted("step ", step_id, ", which this Run was to follow, failed: ", status.ToString()));
    }
  }
}

// How long the StepDones of an aborted step may take before the master
// stops waiting for them: a health ping's deadline, at least a second.
std::chrono::milliseconds AbandonGrace(const MasterOptions& o) {
  return std::chrono::milliseconds(std::max<int64_t>(o.health_timeout_ms, 1000));
}

// Ends a step that ran past its timeout and whose partitions did not all
// answer even the abort: a task that runs and answers pings but whose
// StepDone cannot reach this process (its connection back to the master's
// links refused: a firewall, another address family) would otherwise hold
// the step, and its client, for ever. The StepDones that come later find
// no step and are dropped.
void AbandonStep(Self* self, int64_t step_id) {
  MasterState& st = self->state;
  auto it = st.pending.find(step_id);
  if (it == st.pending.end()) return;
  PendingStep step = std::move(it->second);
  st.pending.erase(it);
  StepEnded(self, step.generation);
  const Status abandoned = errors::DeadlineExceeded("it was abandoned past the operation timeout");
  StartDeferred(self, step_id, step.deferred, abandoned);
  // Its follower waits for it in the partitions that never answered.
  if (step.follower != 0) AbortStep(self, step.follower, FollowerAborted(step_id, step.follower, abandoned));
  if (st.options.links != nullptr) st.options.links->ForgetStep(step_id);
  std::set<std::string> silent;
  for (const RegisteredPartition& p : step.partitions) {
    if (step.answered.count(p.handle) == 0) silent.insert(TaskOf(p.device));
  }
  std::string tasks;
  for (const std::string& t : silent) tasks += (tasks.empty() ? "" : ", ") + t;
  step.call->reply(errors::DeadlineExceeded(
      "step ", step_id, " ran past the operation timeout of ", step.timeout_ms,
      " ms, and ", tasks, " did not answer its abort within ", AbandonGrace(st.options).count(),
      " ms either (a kernel still running there, or its answer refused on its way back to this "
      "process? see the task's log)"));
}

// One device's share of a Run's graph.
struct PartitionPlan {
  std::string device;
  GraphDef graph;
};

// Plans a Run's partitions, with `pinned` nodes (name -> device) placed
// where it says. `cost` null: the static estimates.
StatusOr<std::vector<PartitionPlan>> PlanPartitions(
    const MasterState& st, SubgraphSpec spec, std::map<std::string, std::string>* assignment,
    const CostModel* cost = nullptr, std::map<std::string, std::string> pinned = {}) {
  const MasterOptions& o = st.options;
  PlanOptions plan;
  for (const DeviceEndpoint& d : o.devices) {
    plan.devices.push_back(d.name);
    plan.partition.incarnations[d.name] = d.incarnation;
  }
  plan.placer.allow_soft_placement = o.allow_soft_placement;
  plan.placer.cost_model = cost;
  plan.placer.strategy = o.placement_strategy;
  plan.placer.min_spread_gain = o.placement_min_spread_gain;
  plan.partition.schedule_recvs = o.schedule_recvs;
  plan.partition.lossy_float_transfer = o.lossy_float_transfer;
  plan.pinned = std::move(pinned);
  TACT_ASSIGN_OR_RETURN(RunPlan run, PlanRun(*st.graph, std::move(spec), plan));
  *assignment = std::move(run.assignment);
  std::vector<PartitionPlan> plans;
  for (auto& [device, def] : run.partitions.partitions) {
    if (!def.nodes.empty()) plans.push_back(PartitionPlan{device, std::move(def)});
  }
  return plans;
}


// The signature `key` if it is still the registration `generation`.
Signature* FindSignature(MasterState& st, const std::string& key, uint64_t generation) {
  auto it = st.signatures.find(key);
  return it == st.signatures.end() || it->second.generation != generation ? nullptr : &it->second;
}

void RegistrationFailed(Self* self, const std::string& key, uint64_t generation,
                        const Status& status) {
  auto it = self->state.signatures.find(key);
  // Gone already if an earlier partition failed.
  if (it == self->state.signatures.end() || it->second.generation != generation) return;
  for (auto& call : it->second.waiting) call->reply(status);
  // Forgotten, so that a later Run of the signature tries again; the
  // partitions that did register go.
  Retire(self, it->second);
  self->state.signatures.erase(it);
}

// Asks each device actor to register its partition of `plans` as the
// signature `key`; the Runs of this signature wait for every answer.
void RegisterPartitions(Self* self, const std::string& key, SubgraphSpec spec,
                        std::vector<PartitionPlan> plans,
                        std::map<std::string, std::string> assignment, bool replanned) {
  MasterState& st = self->state;
  Signature& sig = st.signatures[key];
  sig.generation = st.next_generation++;
  const uint64_t generation = sig.generation;
  for (const std::string& name : spec.feeds) {
    TensorId id = *ParseTensorId(name);
    sig.feed_types.emplace_back(name, BaseType(st.graph->FindNode(id.node)->output_type(id.port)));
  }
  sig.spec = std::move(spec);
  sig.assignment = std::move(assignment);
  sig.replanned = replanned;
  std::map<std::string, uint32_t> per_task;
  for (const PartitionPlan& plan : plans) ++per_task[TaskOf(plan.device)];
  sig.unregistered = static_cast<int>(plans.size());
  for (size_t i = 0; i < plans.size(); ++i) {
    WireRegisterPartition reg;
    reg.handle = st.partition_prefix + std::to_string(st.next_partition++);
    reg.device = plans[i].device;
    reg.graph = std::move(plans[i].graph);
    const DeviceEndpoint* endpoint = Endpoint(st, reg.device);
    reg.incarnation = endpoint->incarnation;
    reg.container = st.options.container;
    reg.feeds = ClientTensors(reg.graph, "_Recv");
    reg.fetches = ClientTensors(reg.graph, "_Send");
    reg.partitions_in_task = per_task[TaskOf(reg.device)];
    sig.partitions.push_back(
        RegisteredPartition{reg.handle, caf::actor(), reg.feeds, TaskOf(reg.device), reg.device});
    if (HasLink(st, *endpoint)) {
      // Opened now, the link is there for the steps' messages.
      st.options.links->Connect(endpoint->task, endpoint->host, endpoint->link_port,
                                st.attachments[endpoint->task]);
      std::vector<std::pair<std::string, Tensor>> linked = TakeLinkedAttrs(&reg.graph);
      if (!linked.empty()) {
        reg.linked_step = st.next_linked_step--;
        st.linked_registrations[reg.linked_step] = {key, generation};
      }
      for (auto& [attr, t] : linked) {
        SendByLink(self, *endpoint, reg.linked_step, attr, t);
        reg.linked_attrs.push_back(attr);
      }
    }
    const int64_t linked_step = reg.linked_step;
    self->request(endpoint->actor, kRegisterTimeout, std::move(reg))
        .then(
            [self, key, generation, i, linked_step](WirePartitionRegistered& registered) {
              self->state.linked_registrations.erase(linked_step);
              Signature* s = FindSignature(self->state, key, generation);
              if (s == nullptr) {
                // Another partition failed, or a task was lost, or the Run
                // was placed again: this one registered after its
                // signature was forgotten, and will never run.
                Deregister(self,
                           {RegisteredPartition{registered.handle, caf::actor(), {}, "", registered.device}});
                return;
              }
              // Empty when the partition is in another process: steps then
              // go by its task's link, or through its device actor.
              if (auto* actor = std::any_cast<caf::actor>(&registered.local_partition)) {
                s->partitions[i].actor = std::move(*actor);
              }
              if (--s->unregistered > 0) return;
              for (auto& call : std::exchange(s->waiting, {})) StartStep(self, std::move(call), key, *s);
            },
            [self, key, generation, linked_step](caf::error& err) {
              self->state.linked_registrations.erase(linked_step);
              RegistrationFailed(self, key, generation, FromCafError(err));
            });
  }
}

// Plans the partitions for `call` and has them registered. Sets
// `needs_lost` when it fails because a task it needs is lost.
Status Register(Self* self, const std::string& key, const RunCall& call, bool* needs_lost) {
  MasterState& st = self->state;
  SubgraphSpec spec;
  for (const auto& [name, t] : call.feeds) spec.feeds.push_back(name);
  spec.fetches = call.fetches;
  spec.targets = call.targets;
  std::map<std::string, std::string> assignment;
  TACT_ASSIGN_OR_RETURN(std::vector<PartitionPlan> plans, PlanPartitions(st, spec, &assignment));
  for (const PartitionPlan& plan : plans) {
    auto lost = st.lost_tasks.find(TaskOf(plan.device));
    if (lost != st.lost_tasks.end()) {
      *needs_lost = true;
      return lost->second;
    }
  }
  RegisterPartitions(self, key, std::move(spec), std::move(plans), std::move(assignment), false);
  return Status::OK();
}

// A Run that needs a lost task waits for it, up to task_wait_ms in all
// (`deadline` set: it waited before).
void Park(Self* self, std::shared_ptr<RunCall> call, const Status& why,
          std::optional<std::chrono::steady_clock::time_point> deadline) {
  MasterState& st = self->state;
  const auto now = std::chrono::steady_clock::now();
  if (!deadline) deadline = now + std::chrono::milliseconds(st.options.task_wait_ms);
  if (st.options.task_wait_ms <= 0 || *deadline <= now) {
    call->reply(why);
    return;
  }
  const uint64_t id = st.next_parked++;
  st.parked[id] = ParkedRun{std::move(call), *deadline, why};
  self->delayed_send(self, *deadline - now, park_timeout_atom::value, id);
}

void ParkTimeout(Self* self, uint64_t id) {
  auto it = self->state.parked.find(id);
  if (it == self->state.parked.end()) return;  // run again already
  ParkedRun p = std::move(it->second);
  self->state.parked.erase(it);
  p.call->reply(errors::Unavailable(p.why.message(), "; not back within ",
                                    self->state.options.task_wait_ms, " ms"));
}

void Run(Self* self, std::shared_ptr<RunCall> call,
         std::optional<std::chrono::steady_clock::time_point> parked_until = std::nullopt) {
  MasterState& st = self->state;
  if (st.closed) {
    call->reply(Cancelled());
    return;
  }
  if (!st.failed.ok()) {
    call->reply(st.failed);
    return;
  }
  const std::string key = SignatureKey(*call);
  auto it = st.signatures.find(key);
  if (it == st.signatures.end()) {
    bool needs_lost = false;
    Status s = Register(self, key, *call, &needs_lost);
    if (!s.ok()) {
      st.signatures.erase(key);
      if (needs_lost) {
        Park(self, std::move(call), s, parked_until);
      } else {
        call->reply(s);
      }
      return;
    }
    it = st.signatures.find(key);
  }
  if (it->second.unregistered > 0) {
    it->second.waiting.push_back(std::move(call));
    return;
  }
  StartStep(self, std::move(call), key, it->second);
}

// Stops new steps and aborts the running ones; each still answers its
// client (with Cancelled, or its result if it finished first).
void Close(Self* self) {
  MasterState& st = self->state;
  st.closed = true;
  for (auto& [key, sig] : st.signatures) {
    for (auto& call : std::exchange(sig.waiting, {})) call->reply(Cancelled());
  }
  for (auto& [id, p] : std::exchange(st.parked, {})) p.call->reply(Cancelled());
  for (const auto& [step_id, step] : st.pending) {
    AbortStep(self, step_id,
              errors::Cancelled("the session was closed while step ", step_id, " was running"));
  }
}

// The supervisor gave up on the cluster (its restart limit): what waits
// and what runs fails with `why`, and so does every later Run.
void GiveUp(Self* self, Status why) {
  MasterState& st = self->state;
  if (!st.failed.ok()) return;
  st.failed = std::move(why);
  for (auto& [key, sig] : st.signatures) {
    for (auto& call : std::exchange(sig.waiting, {})) call->reply(st.failed);
  }
  for (auto& [id, p] : std::exchange(st.parked, {})) p.call->reply(st.failed);
  for (const auto& [step_id, step] : st.pending) AbortStep(self, step_id, st.failed);
}

// A tensor for a step or a registration did not leave on its link: what
// waits for it there would wait until a deadline, so it fails now.
void BulkFailed(Self* self, int64_t step_id, const Status& why) {
  MasterState& st = self->state;
  if (st.pending.count(step_id)) {
    AbortStep(self, step_id, why);
    return;
  }
  auto it = st.linked_registrations.find(step_id);
  if (it == st.linked_registrations.end()) return;
  const auto [key, generation] = it->second;
  st.linked_registrations.erase(it);
  RegistrationFailed(self, key, generation, why);
}

Status Extend(MasterState& st, const GraphDef& add) {
  GraphDef combined = st.graph_def;
  combined.nodes.insert(combined.nodes.end(), add.nodes.begin(), add.nodes.end());
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, Graph::FromGraphDef(combined));
  st.graph_def = std::move(combined);
  st.graph = std::move(g);
  // Registered partitions stay valid: new nodes cannot become inputs of
  // old ones, so no existing closure changes.
  return Status::OK();
}

caf::behavior MasterBehavior(Self* self, MasterOptions options) {
  self->state.options = std::move(options);
  std::mt19937_64 random{std::random_device{}()};
  self->state.next_step = static_cast<int64_t>((random() >> 33) << 32) + 1;
  self->state.next_linked_step = -static_cast<int64_t>((random() >> 33) << 32) - 1;
  char prefix[32];
  std::snprintf(prefix, sizeof(prefix), "partition_%08x_", static_cast<unsigned>(random()));
  self->state.partition_prefix = prefix;
  if (self->state.options.health_interval_ms > 0) WatchTasks(self);
  return {
      [self](health_atom) { CheckHealth(self); },
      [self](reattach_atom, const std::string& task, int attempt) { Reattach(self, task, attempt); },
      [self](std::shared_ptr<ExtendCall> call) { call->reply(Extend(self->state, call->graph)); },
      [self](std::shared_ptr<RunCall> call) {
        if (self->state.crash_at_next_run) {
          // Dropped unanswered: the call answers its client Unavailable.
          self->quit(caf::make_error(caf::sec::runtime_error, "CrashMaster fault hook"));
          return;
        }
        Run(self, std::move(call));
      },
      [self](WireStepDone& done) { FinishStep(self, done); },
      [self](timeout_atom, int64_t step_id) {
        auto it = self->state.pending.find(step_id);
        if (it == self->state.pending.end()) return;
        AbortStep(self, step_id,
                  errors::DeadlineExceeded("step ", step_id, " ran past the operation timeout of ",
                                           it->second.timeout_ms, " ms"));
        self->delayed_send(self, AbandonGrace(self->state.options), abandon_atom::value, step_id);
      },
      [self](abandon_atom, int64_t step_id) { AbandonStep(self, step_id); },
      [self](close_atom) { Close(self); },
      [self](crash_atom) { self->state.crash_at_next_run = true; },
      [self](give_up_atom, const caf::error& why) { GiveUp(self, FromCafError(why)); },
      [self](park_timeout_atom, uint64_t id) { ParkTimeout(self, id); },
      [self](bulk_failed_atom, int64_t step_id, const caf::error& why) {
        BulkFailed(self, step_id, FromCafError(why));
      },
  };
}

}  // namespace

// Fails what is still running of a step everywhere; its StepDones follow.
void AbortStep(Self* self, int64_t step_id, const Status& status) {
  auto it = self->state.pending.find(step_id);
  if (it == self->state.pending.end()) return;
  for (const RegisteredPartition& p : it->second.partitions) {
    const DeviceEndpoint* endpoint = Endpoint(self->state, p.device);
    const WireAbortStep abort{step_id, status};
    // On the link its RunStep took, so that it cannot overtake it.
    if (endpoint == nullptr || !SendStepMessage(self, *endpoint, step_id, kAbortStepKey, abort)) {
      self->send(PartitionOrDevice(p, endpoint), abort);
    }
  }
}

std::string TaskOf(const std::string& device) {
  const size_t d = device.find("/device:");
  return d == std::string::npos ? device : device.substr(0, d);
}

// Places the signature `key` again from the measured costs, and replaces
// its partitions if the new plan's simulated step is shorter by more than
// the threshold. Its stateful nodes stay where they are, since their state
// (a Variable's value, a queue's elements) lives on that device. Steps in
// flight finish on the old partitions; new Runs wait for the new ones.
// Either way the signature is not measured again.
void Replan(Self* self, const std::string& key, Signature& sig) {
  MasterState& st = self->state;
  sig.replanned = true;
  const CostModel& cost = *st.measured_costs;
  const std::string client = st.options.devices[0].name;
  StatusOr<double> before = PlannedMakespan(*st.graph, sig.spec, client, sig.assignment, cost);
  std::map<std::string, std::string> pinned, assignment;
  for (const auto& [name, device] : sig.assignment) {
    const Node* n = st.graph->FindNode(name);
    if (n != nullptr && n->IsStateful()) pinned.emplace(name, device);
  }
  StatusOr<std::vector<PartitionPlan>> plans =
      PlanPartitions(st, sig.spec, &assignment, &cost, std::move(pinned));
  StatusOr<double> after =
      plans.ok() ? PlannedMakespan(*st.graph, sig.spec, client, assignment, cost) : plans.status();
  if (!before.ok() || !after.ok()) {
    LogWarning("placement from measured costs skipped: ",
               (before.ok() ? after.status() : before.status()).ToString());
    return;
  }
  const bool better = *after < *before * (1 - st.options.placement_replace_threshold);
  if (LogEnabled(LogLevel::kInfo)) {
    LogMessage(LogLevel::kInfo,
               errors::internal::StrCat("placement from measured costs: simulated step ",
                                        *before * 1e3, " ms as placed, ", *after * 1e3,
                                        " ms placed again", better ? ": replacing the partitions" : ""));
  }
  if (!better) return;
  for (const PartitionPlan& plan : *plans) {
    if (st.lost_tasks.count(TaskOf(plan.device)) > 0) return;  // not now: keep what runs
  }
  SubgraphSpec spec = sig.spec;
  Retire(self, sig);
  st.signatures.erase(key);
  RegisterPartitions(self, key, std::move(spec), std::move(*plans), std::move(assignment), true);
}

// A measured step of signature `key` finished; the last one it needs
// places it again.
void CountMeasuredStep(Self* self, const std::string& key, uint64_t generation) {
  MasterState& st = self->state;
  Signature* sig = FindSignature(st, key, generation);
  if (sig == nullptr || sig->replanned || sig->unregistered > 0) return;
  if (++sig->measured_steps < st.options.placement_measure_steps) return;
  Replan(self, key, *sig);
}

void FinishStep(Self* self, WireStepDone& done) {
  MasterState& st = self->state;
  auto it = st.pending.find(done.step_id);
  if (it == st.pending.end()) return;  // a step delivered twice is finished once
  PendingStep& step = it->second;
  if (!step.answered.insert(done.handle).second) return;
  if (step.measured) {
    if (!st.measured_costs) st.measured_costs = std::make_unique<MeasuredCostModel>(*st.graph);
    // Stats with a malformed device name are the worker's bug; the step stands.
    (void)RecordStepStats(done.stats, st.measured_costs.get());
  }
  if (step.call->stats != nullptr) {
    for (NodeExecStats& n : done.stats) step.call->stats->Add(std::move(n));
  }
  if (!done.status.ok() && step.status.ok()) {
    step.status = done.status;
    if (step.outstanding > 1) AbortStep(self, done.step_id, done.status);
    // Where this step ended well, its follower would run.
    if (step.follower != 0) {
      AbortStep(self, step.follower, FollowerAborted(done.step_id, step.follower, done.status));
    }
  }
  for (auto& [name, t] : done.fetched) step.fetched[name] = std::move(t);
  if (--step.outstanding > 0) return;
  PendingStep finished = std::move(step);
  st.pending.erase(it);
  StepEnded(self, finished.generation);
  StartDeferred(self, done.step_id, finished.deferred, finished.status);
  if (st.options.links != nullptr) st.options.links->ForgetStep(done.step_id);
  if (!finished.status.ok()) {
    finished.call->reply(finished.status);
    return;
  }
  // Ignored if the link's reader answered first.
  finished.call->reply(Answer(*finished.call, finished.fetched));
  if (finished.measured) CountMeasuredStep(self, finished.signature, finished.generation);
}

void Retire(Self* self, const Signature& sig) {
  MasterState& st = self->state;
  if (!Running(st, sig.generation)) {
    Deregister(self, sig.partitions);
    return;
  }
  auto& parts = st.retired[sig.generation];
  parts.insert(parts.end(), sig.partitions.begin(), sig.partitions.end());
}

bool HasLink(const MasterState& st, const DeviceEndpoint& d) {
  return st.options.links != nullptr && d.link_port != 0;
}

void SendByLink(Self* self, const DeviceEndpoint& d, int64_t step_id, const std::string& key,
                const Tensor& tensor) {
  caf::actor master = caf::actor_cast<caf::actor>(self);
  // A task attached again is a new epoch: its old link may have been cut.
  const uint64_t epoch = self->state.attachments[d.task];
  // On an open link at once (a step's feed would otherwise wait for its
  // lane's thread to be scheduled: 0.9 ms of a 3 ms mlp step, measured).
  if (self->state.options.links->SendNow(d.task, d.link_port, epoch, step_id, key, tensor)) return;
  self->state.options.links->Send(d.task, d.host, d.link_port, epoch, step_id, key, tensor,
                                 [master, step_id](const Status& s) {
                                   caf::anon_send(master, bulk_failed_atom::value, step_id, ToCafError(s));
                                 });
}

void RunAgain(Self* self, std::shared_ptr<RunCall> call) { Run(self, std::move(call)); }

void RunParked(Self* self) {
  for (auto& [id, p] : std::exchange(self->state.parked, {})) Run(self, std::move(p.call), p.deadline);
}

caf::actor SpawnMaster(caf::actor_system& system, MasterOptions options) {
  return system.spawn(MasterBehavior, std::move(options));
}

}  // namespace tact

// The tasks of a cluster, as the master sees them (paper 3.3: "when a
// failure is detected, the entire graph execution is aborted"): watched by
// CAF monitors (a broken connection arrives at once) and health pings (a
// hung task misses its deadline); a lost task fails every step it takes
// part in, and is tried again at its address, with backoff, until a
// process answers there, which is then attached in its place.
#include <algorithm>
#include <caf/io/all.hpp>

#include "actors/cluster_connect.h"
#include "actors/master_state.h"
#include "actors/wire_auth.h"

namespace tact {
namespace {

constexpr auto kFirstRetry = std::chrono::milliseconds(100);
constexpr auto kLongestRetry = std::chrono::seconds(2);
// A task that is up answers these at once.
constexpr auto kReattachTimeout = std::chrono::seconds(5);

void ScheduleReattach(Self* self, const std::string& task, int attempt) {
  if (!self->state.options.task_addresses.count(task)) return;
  const auto delay = std::min<std::chrono::milliseconds>(kFirstRetry * (1 << std::min(attempt, 5)),
                                                         kLongestRetry);
  self->delayed_send(self, delay, reattach_atom::value, task, attempt);
}

void Attach(Self* self, const std::shared_ptr<AttachTry>& t, const caf::actor& actor,
            const WireTaskInfo& info);

// After a failed attempt: the next, later; none after a single one.
void TryAgain(Self* self, const std::string& task, int attempt) {
  if (attempt != kReattachOnce) ScheduleReattach(self, task, attempt + 1);
}

// Ends try `t` (once; false if it had ended), and has the next one follow
// if `try_again`.
bool EndTry(Self* self, const std::shared_ptr<AttachTry>& t, bool try_again) {
  if (t->ended) return false;
  t->ended = true;
  MasterState& st = self->state;
  if (t->attaching) st.attaching.erase(t->task);
  for (auto it = st.tries.begin(); it != st.tries.end(); ++it) {
    if (it->second == t) {
      st.tries.erase(it);
      break;
    }
  }
  if (try_again) TryAgain(self, t->task, t->attempt);
  return true;
}

}  // namespace

// A task is lost (its connection broke, it missed a health ping, or it
// came back as a new process): every running step that has a partition
// there fails now, naming the task, and the other partitions are aborted,
// so no step waits for an answer that cannot come. Signatures registered
// there are forgotten; a Run that needs the task fails with `why`.
// `task` is a copy: callers may pass a key of `tasks`, which this erases.
void TaskLost(Self* self, std::string task, Status why) {
  MasterState& st = self->state;
  if (!st.lost_tasks.emplace(task, why).second) return;
  st.tasks.erase(task);
  if (st.options.on_task_lost) st.options.on_task_lost(task, why);
  if (st.options.supervisor) self->send(st.options.supervisor, task_lost_atom::value, task, why.ToString());
  ScheduleReattach(self, task, 0);
  std::vector<std::shared_ptr<RunCall>> unregistered;
  for (auto it = st.signatures.begin(); it != st.signatures.end();) {
    const auto& parts = it->second.partitions;
    if (std::none_of(parts.begin(), parts.end(), [&](const auto& p) { return p.task == task; })) {
      ++it;
      continue;
    }
    for (auto& call : it->second.waiting) unregistered.push_back(std::move(call));
    Retire(self, it->second);  // its partitions on the tasks that stay
    it = st.signatures.erase(it);
  }
  // Not started yet: each waits for the task (or fails at once without
  // task_wait_ms).
  for (auto& call : unregistered) RunAgain(self, std::move(call));
  std::vector<WireStepDone> failed;
  // Steps whose partitions there had all answered: the tensors those sent
  // may still be lost (a lent tensor goes with its process, and so does
  // the rest of a frame half written), and a partition elsewhere would
  // wait for one until the step's deadline (seen: 10 s after a worker
  // crashed). The step is lost with the task in any case: what follows it
  // is a recovery.
  std::vector<int64_t> answered_there;
  for (const auto& [step_id, step] : st.pending) {
    bool there = false, all_answered = true;
    for (const RegisteredPartition& p : step.partitions) {
      if (p.task != task) continue;
      there = true;
      if (!step.answered.count(p.handle)) {
        all_answered = false;
        failed.push_back(WireStepDone{step_id, p.handle, why, {}, {}, {}});
      }
    }
    if (there && all_answered) answered_there.push_back(step_id);
  }
  for (WireStepDone& done : failed) FinishStep(self, done);
  for (int64_t step_id : answered_there) AbortStep(self, step_id, why);
}

// Pings every remote task; one that does not answer in time, or answers
// as a new incarnation, is lost.
void CheckHealth(Self* self) {
  MasterState& st = self->state;
  const auto timeout = std::chrono::milliseconds(st.options.health_timeout_ms);
  for (const auto& [task, actor] : st.tasks) {
    uint64_t incarnation = 0;
    for (const DeviceEndpoint& d : st.options.devices) {
      if (d.task == task) incarnation = d.incarnation;
    }
    WireHealthPing ping;
    ping.sequence = ++st.health_sequence;
    // An answer or a timeout from before the task was lost and attached
    // again (maybe the same process, after a cut) says nothing about it
    // now: pings sent before a loss time out after it.
    auto still = [self, task = task, attached = st.attachments[task]]() {
      return self->state.tasks.count(task) && self->state.attachments[task] == attached;
    };
    self->request(actor, timeout, std::move(ping))
        .then(
            [self, task = task, incarnation, still](const WireHealthPing& answer) {
              if (still() && answer.incarnation != incarnation) {
                TaskLost(self, task, errors::Unavailable("task ", task, " was restarted (incarnation ",
                                                         answer.incarnation, ", was ", incarnation, ")"));
              }
            },
            [self, task = task, still](caf::error& e) {
              if (!still()) return;
              TaskLost(self, task,
                       errors::Unavailable("task ", task, " did not answer a health ping within ",
                                           self->state.options.health_timeout_ms, " ms (",
                                           FromCafError(e).message(), ")"));
            });
  }
  self->delayed_send(self, std::chrono::milliseconds(st.options.health_interval_ms),
                     health_atom::value);
}

// Watches the tasks of a cluster: a broken connection arrives as a down
// message at once; a hung task misses its pings.
void WatchTasks(Self* self) {
  MasterState& st = self->state;
  for (const DeviceEndpoint& d : st.options.devices) {
    if (st.tasks.emplace(d.task, d.actor).second) self->monitor(d.actor);
  }
  self->set_down_handler([self](caf::down_msg& down) {
    for (const auto& [task, actor] : self->state.tasks) {
      if (actor.address() == down.source) {
        TaskLost(self, task, errors::Unavailable("task ", task, " is gone (",
                                                 self->system().render(down.reason), ")"));
        return;
      }
    }
    // A process being attached whose connection broke: its requests in
    // flight would only time out, so its tries end now.
    std::vector<std::shared_ptr<AttachTry>> cut;
    auto [first, last] = self->state.tries.equal_range(down.source);
    for (auto it = first; it != last; ++it) cut.push_back(it->second);
    for (const auto& t : cut) EndTry(self, t, /*try_again=*/true);
  });
  CheckHealth(self);
}

void Reattach(Self* self, const std::string& task, int attempt) {
  MasterState& st = self->state;
  if (st.closed || !st.lost_tasks.count(task)) return;
  const TaskAddress& a = st.options.task_addresses.at(task);
  self->request(ConnectionManager(self->system()), kReattachTimeout, caf::connect_atom::value, a.host,
                a.port)
      .then(
          [=](const caf::node_id&, caf::strong_actor_ptr& ptr, const std::set<std::string>&) {
            caf::actor actor = caf::actor_cast<caf::actor>(ptr);
            auto t = std::make_shared<AttachTry>(AttachTry{task, attempt});
            self->state.tries.emplace(actor.address(), t);
            self->monitor(actor);
            const std::string payload = NewClusterSecret();  // fresh random bytes to sign
            StatusOr<std::string> proof = SignWireMessage(self->system(), kDescribeProof, payload);
            self->request(actor, kReattachTimeout, WireDescribe{payload, proof.ok() ? *proof : std::string()})
                .then(
                    [=](const WireTaskInfo& info) {
                      if (!t->ended) Attach(self, t, actor, info);
                    },
                    [=](caf::error&) { EndTry(self, t, /*try_again=*/true); });
          },
          [=](caf::error&) { TryAgain(self, task, attempt); });
}

namespace {

// A process answers at a lost task's address. It takes the task's place
// once every task (itself included) has dropped the old process and
// connected to the new one; until then Runs that need it still fail.
void Attach(Self* self, const std::shared_ptr<AttachTry>& t, const caf::actor& actor,
            const WireTaskInfo& info) {
  MasterState& st = self->state;
  const std::string task = t->task;
  if (st.closed || !st.lost_tasks.count(task)) {
    EndTry(self, t, /*try_again=*/false);
    return;
  }
  // One attachment at a time: a second one's "forget" could drop the
  // first's fresh entry. A backoff's attempt comes again later.
  if (st.attaching.count(task)) {
    EndTry(self, t, /*try_again=*/true);
    return;
  }
  std::vector<std::string> had, has = info.devices;
  for (const DeviceEndpoint& d : st.options.devices) {
    if (d.task == task) had.push_back(d.name);
  }
  std::sort(had.begin(), had.end());
  std::sort(has.begin(), has.end());
  if (info.task != task || had != has) {
    // Someone else, or the task with other devices: the partitions placed
    // there cannot come back. Keep trying: the right process may follow.
    EndTry(self, t, /*try_again=*/true);
    return;
  }
  for (DeviceEndpoint& d : st.options.devices) {
    if (d.task != task) continue;
    d.actor = actor;
    d.incarnation = info.incarnation;
    d.link_port = info.link_port;  // a new process listens on a new port
  }
  st.attaching.insert(task);
  t->attaching = true;
  auto failed = [self, t]() { EndTry(self, t, /*try_again=*/true); };
  // First every other task forgets the old process (and a lower one
  // connects to the new); only then does the new one say hello to the
  // tasks after it, so that no late "forget" can drop its fresh entry.
  std::vector<caf::actor> others;
  for (const auto& [t, a] : st.tasks) others.push_back(a);
  auto left = std::make_shared<size_t>(others.size());
  auto ok = std::make_shared<bool>(true);
  // The task forgets the tasks after it too: a process that survived a cut
  // connection still lists them, and would not say hello to them again.
  std::vector<std::string> after;
  for (const auto& [t, address] : st.options.task_addresses) {
    if (t > task) after.push_back(t);
  }
  auto introduce_new = [=]() {
    self->request(actor, kReattachTimeout, WireIntroduce{after, {}})
        .then(
            [=](const WireIntroduced&) {
              if (!EndTry(self, t, /*try_again=*/false)) return;  // cut meanwhile
              self->state.lost_tasks.erase(task);
              self->state.tasks[task] = actor;  // monitored since its try began
              ++self->state.attachments[task];
              if (self->state.options.on_task_back) self->state.options.on_task_back(task);
              if (self->state.options.supervisor) {
                self->send(self->state.options.supervisor, task_back_atom::value, task);
              }
              RunParked(self);
            },
            [=](caf::error&) { failed(); });
  };
  if (others.empty()) {
    introduce_new();
    return;
  }
  for (const caf::actor& a : others) {
    self->request(a, kReattachTimeout, WireIntroduce{{task}, {}})
        .then(
            [=](const WireIntroduced&) {
              if (--*left > 0 || t->ended) return;
              if (*ok) {
                introduce_new();
              } else {
                failed();
              }
            },
            [=](caf::error&) {
              *ok = false;
              if (--*left == 0) failed();
            });
  }
}

}  // namespace
}  // namespace tact

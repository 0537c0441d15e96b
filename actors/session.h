// Session: how a client runs graphs (paper 2). The local session puts the
// client, the master and the worker in one process (paper 3), built on the
// same actors the distributed runtime uses: a master actor that prunes and
// registers partitions, and a partition actor per registered partition that
// runs its executor.
//
//   auto session = Session::Create();
//   (*session)->Extend(graph_def);
//   auto out = (*session)->Run({{"x:0", x}}, {"relu:0"}, {});
//   // out->at(0) is relu's value
//
// Thread-safe: Run may be called from several threads at once; each call
// is its own step. Every error (an unknown feed, a wrong dtype, a kernel
// failing) is returned as a Status and leaves the session usable.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "actors/cluster_spec.h"
#include "actors/step_stats.h"
#include "actors/supervision_options.h"
#include "graph/graph_def.h"
#include "placement/placer.h"

namespace tact {

struct SessionOptions {
  // Devices of this process by type ({"CPU": 4} makes four CPU devices).
  // The placer spreads each Run's nodes over them (paper 3.2). A feed
  // enters, and a fetch leaves, on the device its node asks for; one whose
  // node asks for none, on the first device.
  std::map<std::string, int> device_count = {{"CPU", 1}};
  int intra_op_threads = 2;  // threads of each device's pools
  // Container for Variables that name none; empty gives the session a
  // private one, so two sessions share variables only by naming a container.
  std::string default_container;
  // A step still running after this long is aborted: its waiting Recvs fail
  // with DeadlineExceeded (TensorFlow's operation_timeout_in_ms); kernels
  // already running finish first. 0: no limit. A Run may set its own
  // (RunOptions::timeout_ms).
  int64_t operation_timeout_ms = 0;
  // A node whose requested device no device can meet is placed as if it
  // had requested none (TensorFlow's allow_soft_placement); kernels still
  // decide.
  bool allow_soft_placement = false;
  // Paper 5.2: delay each Recv until shortly before its consumers need it,
  // so received tensors do not sit in memory for the whole step.
  bool schedule_recvs = false;
  // Paper 5.5: float32 crossing devices travels as its upper 16 bits.
  bool lossy_float_transfer = false;
  // Paper 3.2.1, placement from measured costs: the first this many steps
  // of each (feeds, fetches, targets) report every node's time and output
  // sizes to the master, which then places that Run again with those costs
  // (stateful nodes stay where their state is) and replaces its partitions
  // if the new plan's simulated step is shorter by more than
  // placement_replace_threshold (a fraction of the old). 0: every Run is
  // placed once, from the static estimates (the default: placement then
  // never changes under a running job).
  int64_t placement_measure_steps = 0;
  double placement_replace_threshold = 0.1;
  // The paper's greedy placement, or a baseline to judge it by.
  PlacementStrategy placement_strategy = PlacementStrategy::kGreedy;
  // Greedy placement over the devices of one process keeps a Run on one
  // device unless spreading it simulates at least this fraction faster
  // (PlacerOptions::min_spread_gain); in [0, 1). 0: spread whenever the
  // simulation says it is no slower.
  double placement_min_spread_gain = 0.1;

  // Run on a cluster instead of this process's devices (paper 3.3): the
  // master, in this process, connects to every task of the spec, places
  // each Run over all their devices and registers the partitions there;
  // device_count and intra_op_threads are then the tasks' business.
  // Variables that name no container live in the tasks' default container
  // and outlive the session, as on TensorFlow's parameter servers.
  std::optional<ClusterSpec> cluster;
  // The cluster's secret (actors/wire_auth.h); empty: $TACT_CLUSTER_SECRET.
  std::string cluster_secret;
  // TLS for the connections to the tasks (which must use it too).
  ClusterTls cluster_tls;
  // How long Create waits for the tasks to come up.
  int64_t connect_timeout_ms = 10000;
  // Every task is pinged this often; one that misses the deadline (or
  // whose connection breaks) fails the steps it takes part in, naming it.
  int64_t health_interval_ms = 500;
  int64_t health_timeout_ms = 2000;
  SupervisionOptions supervision;
};

// How one Run differs from the session's defaults (TensorFlow's RunOptions).
struct RunOptions {
  // This Run's step is aborted after this long instead of after
  // SessionOptions::operation_timeout_ms (TensorFlow's timeout_in_ms):
  // > 0 a limit, 0 the session's, kNoTimeout none. None suits a step that
  // waits on purpose, as a QueueRunner's enqueue waits for room in its
  // queue for as long as the consumer takes; a lost task still fails it.
  static constexpr int64_t kNoTimeout = -1;
  int64_t timeout_ms = 0;
};

// What a Run reports besides its fetches.
struct RunMetadata {
  StepStats step_stats;  // every node that ran in the step
};

// A Run that Session::StartFollowing began. Wait returns what Run would
// have (once); destroyed unwaited, it waits for the Run to end.
class PendingRun {
 public:
  virtual ~PendingRun() = default;
  virtual StatusOr<std::vector<Tensor>> Wait() = 0;
};

class Session {
 public:
  static StatusOr<std::unique_ptr<Session>> Create(const SessionOptions& options = {});
  virtual ~Session() = default;

  // Adds the nodes of `graph` to the session's graph. The combined graph
  // must be valid; on error nothing is added.
  virtual Status Extend(const GraphDef& graph) = 0;

  // Runs one step: feeds {"node:port" -> tensor}, returns the fetched
  // tensors in the order of `fetches`, and runs `targets` for their effect.
  // Only what the fetches and targets need is run; a fed tensor's producer
  // is not.
  StatusOr<std::vector<Tensor>> Run(const std::vector<std::pair<std::string, Tensor>>& feeds,
                                    const std::vector<std::string>& fetches,
                                    const std::vector<std::string>& targets,
                                    RunMetadata* metadata = nullptr) {
    return Run(RunOptions{}, feeds, fetches, targets, metadata);
  }
  // The same, with this Run's own options.
  virtual StatusOr<std::vector<Tensor>> Run(const RunOptions& options,
                                            const std::vector<std::pair<std::string, Tensor>>& feeds,
                                            const std::vector<std::string>& fetches,
                                            const std::vector<std::string>& targets,
                                            RunMetadata* metadata = nullptr) = 0;

  // Called once with what Run would have returned.
  using RunDone = std::function<void(StatusOr<std::vector<Tensor>>)>;
  // Starts a Run and returns without waiting for it; `done` gets its
  // answer. For a program whose own threads must not block, such as the
  // actors of its own CAF actor system: `done` runs on a thread of the
  // runtime (a device's, a link reader's, or this one before RunAsync
  // returns), so it should hand the answer on and return, never wait on
  // this session; it may start the next RunAsync (a chain of them does not
  // nest). `metadata`, when given, must live until `done` runs.
  // Close waits for every `done`.
  virtual void RunAsync(const RunOptions& options, const std::vector<std::pair<std::string, Tensor>>& feeds,
                        const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
                        RunDone done, RunMetadata* metadata = nullptr) = 0;

  // Starts a Run and returns at once. The step follows the newest Run of
  // the same feeds, fetches and targets that is still running: each of its
  // partitions starts once that Run has ended in the same partition, so the
  // two compute as if this one were called after the other returned. If
  // that Run fails, this one fails too (Aborted, naming it) without
  // running. A client can so send step N+1 while step N runs, and the
  // hand-offs between two steps (the answer's way to the client, the next
  // step's way to the workers) leave the step's path (docs/actors.md,
  // "Steps sent ahead").
  virtual std::unique_ptr<PendingRun> StartFollowing(
      const std::vector<std::pair<std::string, Tensor>>& feeds,
      const std::vector<std::string>& fetches, const std::vector<std::string>& targets) = 0;

  // Ends the session: running steps are aborted (their Runs return
  // Cancelled unless they finish first) and later calls fail with
  // FailedPrecondition. Returns once every Run has returned.
  virtual Status Close() = 0;
};

// A fault hook for tests and chaos runs: the session's master actor ends
// as a bug would, as it takes the next Run. Its supervisor starts a new
// master with the session's graph, which registers the partitions again
// as Runs need them; that Run and any other the old master held fail with
// Unavailable (a SupervisedSession recovers from that), later ones go to
// the new master. The master's restarts count against
// SupervisionOptions::max_restarts.
//
// Why at the next Run and not at once: a master idle between two Runs may
// have ended and been replaced before the next Run, which then passes, so
// whether a crash costs a Run would depend on the threads' timing; a
// fault hook's effect should be the same on every run.
void CrashMaster(Session& session);

}  // namespace tact

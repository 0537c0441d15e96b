#include "apps/train/trainer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

#include "actors/supervised_session.h"
#include "actors/wire_auth.h"
#include "apps/cluster/fault_plan.h"
#include "apps/cluster/local_cluster.h"
#include "apps/train/data/idx.h"
#include "apps/train/input_pipeline.h"
#include "apps/train/replicated_graph.h"
#include "apps/train/run_container.h"
#include "apps/train/train_graph.h"
#include "apps/train/train_summaries.h"
#include "graph/gradients/gradients.h"
#include "graph/hex.h"
#include "graph/logging.h"
#include "graph/nn/layers.h"
#include "graph/nn/optimizers.h"
#include "graph/nn/variables.h"
#include "graph/ops/all_ops.h"
#include "graph/stable_hash.h"

namespace tact::apps {
namespace {

// The bytes a fingerprint hashes: each variable's name (with its NUL, so
// that names and values cannot run together), dtype, shape and values.
class FingerprintBytes {
 public:
  void Add(const void* data, size_t n) { bytes_.append(static_cast<const char*>(data), n); }
  void Add(const std::string& s) { Add(s.data(), s.size() + 1); }
  void Add(int64_t v) { Add(&v, sizeof v); }
  std::string Hex() const { return HexEncode(StableHash(bytes_)); }

 private:
  std::string bytes_;
};

StatusOr<std::vector<std::pair<std::string, Tensor>>> ReadVariables(Session& session,
                                                                    const ReplicatedTrainGraph& g) {
  std::vector<std::string> fetches;
  for (const auto& [info, value] : g.variables) fetches.push_back(value);
  TACT_ASSIGN_OR_RETURN(std::vector<Tensor> values, session.Run({}, fetches, {}));
  std::vector<std::pair<std::string, Tensor>> named;
  for (size_t i = 0; i < values.size(); ++i) named.emplace_back(g.variables[i].first.name, values[i]);
  return named;
}

std::string VariablesFingerprint(const std::vector<std::pair<std::string, Tensor>>& variables) {
  FingerprintBytes fp;
  for (const auto& [name, t] : variables) {
    fp.Add(name);
    fp.Add(static_cast<int64_t>(t.dtype()));
    for (int d = 0; d < t.dims(); ++d) fp.Add(t.dim_size(d));
    fp.Add(t.raw_data(), t.TotalBytes());
  }
  return fp.Hex();
}

// Rows [begin, begin + n) of `t` (a copy).
Tensor Rows(const Tensor& t, int64_t begin, int64_t n) {
  TensorShape shape = t.shape();
  const size_t row_bytes = t.TotalBytes() / static_cast<size_t>(t.dim_size(0));
  shape.set_dim(0, n);
  Tensor out(t.dtype(), shape);
  std::memcpy(out.raw_data(), static_cast<const char*>(t.raw_data()) + row_bytes * static_cast<size_t>(begin),
              row_bytes * static_cast<size_t>(n));
  return out;
}

// The first `limit` examples (all if limit is 0 or too large).
Dataset Head(Dataset d, int64_t limit) {
  if (limit <= 0 || limit >= d.size()) return d;
  return Dataset{Rows(d.images, 0, limit), Rows(d.labels, 0, limit)};
}

// Evaluation runs on the first tower, whole batches at a time.
StatusOr<double> TestAccuracy(Session& session, const ReplicatedTrainGraph& rg, const Dataset& test) {
  const Tower& g = rg.towers[0];
  Batcher batches(test, 1000, 0, /*shuffle=*/false, /*drop_remainder=*/false);
  int64_t correct = 0;
  for (int64_t i = 0; i < batches.batches_per_epoch(); ++i) {
    Batch b = batches.Get(0, i);
    TACT_ASSIGN_OR_RETURN(std::vector<Tensor> out,
                          session.Run({{g.images, b.images}, {g.labels, b.labels},
                                       {rg.training, Tensor::Scalar<bool>(false)}},
                                      {g.correct}, {}));
    correct += out[0].scalar<int32_t>();
  }
  return static_cast<double>(correct) / static_cast<double>(test.size());
}

// A local run's graph as a cluster run's with one tower.
ReplicatedTrainGraph OneTower(TrainGraph g) {
  ReplicatedTrainGraph r;
  r.def = std::move(g.def);
  r.towers.push_back(Tower{g.images, g.labels, g.loss, g.correct, ""});
  r.training = g.training;
  r.train_op = g.train_op;
  r.init_op = g.init_op;
  r.variables = std::move(g.variables);
  r.parameters = g.parameters;
  return r;
}

// Where the training runs: this process's devices, or a cluster (started
// here unless given); the cluster lives as long as the session uses it.
struct Place {
  std::unique_ptr<LocalCluster> local_cluster;
  SessionOptions options;
  ReplicatedTrainGraph graph;
  int ps = 0, workers = 0;
};

// A pause outlasts the session's health deadline, so the task is lost.
constexpr int kPauseMs = 3000;

StatusOr<Place> Prepare(const TrainOptions& opt) {
  Place p;
  SessionOptions& so = p.options;
  so.supervision.checkpoint = opt.supervision.checkpoint;
  so.intra_op_threads = opt.cluster.intra_op_threads;
  so.device_count = {{"CPU", opt.cluster.devices}};
  if (opt.cluster.gpus > 0) so.device_count["GPU"] = opt.cluster.gpus;
  if (opt.cluster.workers <= 0 && opt.cluster.cluster_file.empty()) {
    TACT_ASSIGN_OR_RETURN(TrainGraph g, BuildTrainGraph(opt));
    p.graph = OneTower(std::move(g));
  } else {
    ReplicaOptions r{opt.cluster.ps, opt.cluster.workers, opt.cluster.sync};
    so.operation_timeout_ms = opt.cluster.step_timeout_ms;
    so.default_container = RunContainer(opt.supervision.checkpoint.dir);
    if (!opt.cluster.cluster_file.empty()) {
      TACT_ASSIGN_OR_RETURN(so.cluster, ClusterSpec::FromFile(opt.cluster.cluster_file));
      r.ps = so.cluster->jobs.count("ps") ? static_cast<int>(so.cluster->jobs["ps"].size()) : 0;
      r.workers = so.cluster->jobs.count("worker") ? static_cast<int>(so.cluster->jobs["worker"].size()) : 0;
    }
    if (opt.data.batch % std::max(r.workers, 1) != 0) {
      return errors::InvalidArgument("batch ", opt.data.batch, " does not split evenly over ", r.workers,
                                     " workers");
    }
    so.supervision.max_restarts = opt.supervision.max_restarts;
    so.supervision.restart_window_secs = opt.supervision.restart_window_secs;
    so.supervision.task_wait_ms = static_cast<int64_t>(opt.supervision.task_wait_secs * 1000);
    TACT_ASSIGN_OR_RETURN(p.graph, BuildReplicatedTrainGraph(opt, r));
    p.ps = r.ps;
    p.workers = r.workers;
    if (opt.cluster.cluster_file.empty()) {
      LocalClusterOptions c;
      c.binary = opt.cluster.worker_binary;
      c.jobs = {{"ps", r.ps}, {"worker", r.workers}};
      c.threads_per_device = opt.cluster.intra_op_threads;
      TACT_ASSIGN_OR_RETURN(p.local_cluster, LocalCluster::Start(c));
      so.cluster = p.local_cluster->spec();
      so.cluster_secret = p.local_cluster->secret();
      so.supervision.restart_task = p.local_cluster->Restarter();
    } else {
      if (!opt.cluster.secret_file.empty()) {
        TACT_ASSIGN_OR_RETURN(so.cluster_secret, ReadClusterSecret(opt.cluster.secret_file));
      }
      so.connect_timeout_ms = static_cast<int64_t>(opt.cluster.connect_wait_secs * 1000);
    }
  }
  return p;
}

// Tower k's feeds: its share of the step's batch (none when the tower
// reads its own with input ops: `shares` empty).
std::vector<std::pair<std::string, Tensor>> TowerFeeds(const ReplicatedTrainGraph& g, size_t k,
                                                       const std::vector<Batch>& shares,
                                                       const Tensor& training) {
  if (shares.empty()) return {{g.training, training}};
  return {{g.towers[k].images, shares[k].images}, {g.towers[k].labels, shares[k].labels},
          {g.training, training}};
}

// One sync step: every tower's share in one Run.
struct SyncStep {
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::vector<std::string> losses;  // each tower's
};

SyncStep SyncStepOf(const ReplicatedTrainGraph& g, const std::vector<Batch>& shares, const Tensor& training) {
  SyncStep step;
  for (size_t k = 0; k < g.towers.size(); ++k) {
    for (auto& f : TowerFeeds(g, k, shares, training)) {
      if (k == 0 || f.first != g.training) step.feeds.push_back(std::move(f));
    }
    step.losses.push_back(g.towers[k].loss);
  }
  return step;
}

// A sync step that follows the step before (Session::StartFollowing).
std::unique_ptr<PendingRun> StartSyncStep(Session& session, const ReplicatedTrainGraph& g,
                                          const std::vector<Batch>& shares, const Tensor& training) {
  const SyncStep step = SyncStepOf(g, shares, training);
  return session.StartFollowing(step.feeds, step.losses, {g.train_op});
}

// Its loss: the towers' mean (each tower's loss is the mean over its
// equal share).
StatusOr<double> SyncLoss(const StatusOr<std::vector<Tensor>>& out) {
  TACT_RETURN_IF_ERROR(out.status());
  double sum = 0;
  for (const Tensor& t : *out) sum += t.scalar<float>();
  return sum / static_cast<double>(out->size());
}

// A sync step run by itself with its step stats (StartFollowing gives
// none), for --trace.
StatusOr<double> TracedSyncStep(
    Session& session, const ReplicatedTrainGraph& g, const std::vector<Batch>& shares, const Tensor& training,
    int64_t step, const std::function<void(int64_t, const RunMetadata&, const GraphDef&)>& on_trace) {
  const SyncStep run = SyncStepOf(g, shares, training);
  RunMetadata meta;
  StatusOr<double> loss = SyncLoss(session.Run(run.feeds, run.losses, {g.train_op}, &meta));
  if (loss.ok() && on_trace) on_trace(step, meta, g.def);
  return loss;
}

// One async step: each tower runs its own update on its share, all at
// once, from a thread each (each Run is its own step on the cluster).
StatusOr<double> AsyncStep(Session& session, const ReplicatedTrainGraph& g, const std::vector<Batch>& shares,
                           const Tensor& training) {
  std::vector<StatusOr<std::vector<Tensor>>> results(g.towers.size(), errors::Internal("not run"));
  std::vector<std::thread> threads;
  for (size_t k = 0; k < g.towers.size(); ++k) {
    threads.emplace_back([&, k] {
      results[k] = session.Run(TowerFeeds(g, k, shares, training), {g.towers[k].loss}, {g.towers[k].train_op});
    });
  }
  for (std::thread& t : threads) t.join();
  double sum = 0;
  for (auto& r : results) {
    TACT_RETURN_IF_ERROR(r.status());
    sum += (*r)[0].scalar<float>();
  }
  return sum / static_cast<double>(results.size());
}

// Asynchronous data-parallel training as the paper's Figure 7 shows it:
// each tower runs its own loop of updates, with kInFlight Runs in flight at
// once, and no tower waits for another. Steps [first, end) of the run are
// (end - first) x towers updates of one share of a step's batch each,
// taken from one pool: a fast replica takes more of them, so a slow one
// holds back nobody.
constexpr int kInFlight = 2;

struct AsyncProgress {
  explicit AsyncProgress(size_t towers) : per_tower(towers, 0) {}
  std::mutex mu;
  double loss_sum = 0;
  int64_t updates = 0;
  std::vector<int64_t> per_tower;
};

Status AsyncLoop(Session& session, const ReplicatedTrainGraph& g, Batcher* batches, bool pipeline,
                 int64_t first, int64_t end, int64_t per_epoch, const Tensor& training,
                 const std::function<bool()>& stop, AsyncProgress* progress) {
  const int64_t towers = static_cast<int64_t>(g.towers.size());
  std::atomic<int64_t> next{first * towers};  // the next update: step u / towers, share u % towers
  std::mutex data_mu;  // the Batcher is not thread-safe
  std::mutex error_mu;
  Status error;
  std::atomic<bool> failed{false};
  std::vector<std::thread> threads;
  for (size_t k = 0; k < g.towers.size(); ++k) {
    for (int t = 0; t < kInFlight; ++t) {
      threads.emplace_back([&, k] {
        for (int64_t u = next++; u < end * towers && !failed.load() && !(stop && stop()); u = next++) {
          const int64_t step = u / towers;
          std::vector<Batch> shares;
          if (!pipeline) {
            std::lock_guard<std::mutex> lock(data_mu);
            std::vector<Batch> all = batches->GetShares(step / per_epoch, step % per_epoch, towers);
            shares.resize(g.towers.size());
            shares[k] = std::move(all[u % towers]);
          }
          StatusOr<std::vector<Tensor>> out =
              session.Run(TowerFeeds(g, k, shares, training), {g.towers[k].loss}, {g.towers[k].train_op});
          if (!out.ok()) {
            std::lock_guard<std::mutex> lock(error_mu);
            if (error.ok()) error = out.status();
            failed.store(true);
            return;
          }
          std::lock_guard<std::mutex> lock(progress->mu);
          progress->loss_sum += (*out)[0].scalar<float>();
          ++progress->updates;
          ++progress->per_tower[k];
        }
      });
    }
  }
  for (std::thread& t : threads) t.join();
  return error;
}

// Records and warns of the first step whose loss is not finite; `where`
// ("at step") says what the step is.
void NoteLoss(double loss, const char* where, int64_t step, TrainResult* r) {
  if (std::isfinite(loss) || r->loss_not_finite_at >= 0) return;
  r->loss_not_finite_at = step;
  LogWarning("tact train: the loss is ", std::isnan(loss) ? "NaN" : "infinite", " ", where, " ", step,
             ": the run has diverged (a lower --lr may help)");
}

}  // namespace

StatusOr<TrainResult> Train(const TrainOptions& opt) {
  if (opt.data.epochs < 1) return errors::InvalidArgument("epochs must be at least 1, got ", opt.data.epochs);
  if (opt.data.batch < 1) return errors::InvalidArgument("batch must be at least 1, got ", opt.data.batch);
  // Negative counts used to pass as "all" (or, for the step timeout,
  // "never"): a typo trained something the user did not ask for.
  if (opt.data.max_steps < 0 || opt.data.train_limit < 0 || opt.data.test_limit < 0) {
    return errors::InvalidArgument("--max-steps (", opt.data.max_steps, "), --train-limit (",
                                   opt.data.train_limit, ") and --test-limit (", opt.data.test_limit,
                                   ") must be >= 0 (0: all)");
  }
  if (opt.cluster.step_timeout_ms < 0) {
    return errors::InvalidArgument("--step-timeout must be >= 0 ms (0: none), got ",
                                   opt.cluster.step_timeout_ms);
  }
  if (opt.cluster.intra_op_threads < 1) {
    return errors::InvalidArgument("--threads must be at least 1, got ", opt.cluster.intra_op_threads);
  }
  if (opt.supervision.chaos_faults < 0) {
    return errors::InvalidArgument("--chaos-faults must be >= 0, got ", opt.supervision.chaos_faults);
  }
  if (opt.cluster.ps > 0 && opt.cluster.workers < 1 && opt.cluster.cluster_file.empty()) {
    return errors::InvalidArgument("ps tasks (", opt.cluster.ps, ") need worker tasks: give --workers too");
  }
  const TrainSupervision& sv = opt.supervision;
  if (!(opt.cluster.connect_wait_secs >= 0)) {
    return errors::InvalidArgument("--connect-wait must be >= 0 seconds, got ", opt.cluster.connect_wait_secs);
  }
  if (sv.max_restarts < 0 || !(sv.restart_window_secs > 0) || !(sv.task_wait_secs >= 0)) {
    return errors::InvalidArgument("--max-restarts must be >= 0 (got ", sv.max_restarts,
                                   "), --restart-window > 0 (got ", sv.restart_window_secs,
                                   ") and --task-wait >= 0 (got ", sv.task_wait_secs, ")");
  }
  TACT_ASSIGN_OR_RETURN(Dataset train, LoadFashionMnist(opt.data.dir, "train"));
  TACT_ASSIGN_OR_RETURN(Dataset test, LoadFashionMnist(opt.data.dir, "t10k"));
  train = Head(std::move(train), opt.data.train_limit);
  test = Head(std::move(test), opt.data.test_limit);
  if (train.size() < opt.data.batch) {
    return errors::InvalidArgument("batch ", opt.data.batch, " is larger than the ", train.size(),
                                   " training images");
  }
  Batcher batches(train, opt.data.batch, opt.model.seed);
  const int64_t per_epoch = batches.batches_per_epoch();
  int64_t total = per_epoch * opt.data.epochs;
  if (opt.data.max_steps > 0 && opt.data.max_steps < total) total = opt.data.max_steps;
  const int64_t trace_step =
      opt.trace_step == TrainOptions::kTraceStepDefault ? std::min<int64_t>(10, total - 1) : opt.trace_step;
  if (trace_step >= total) {
    return errors::InvalidArgument("--trace-step ", trace_step, " is past the run's last step, ", total - 1);
  }
  const bool replicas = opt.cluster.workers > 0 || !opt.cluster.cluster_file.empty();
  if (trace_step >= 0 && replicas && !opt.cluster.sync) {
    return errors::InvalidArgument("--trace traces one sync step; an async step is a Run per replica");
  }

  TACT_ASSIGN_OR_RETURN(Place place, Prepare(opt));
  InputPipeline pipeline;
  if (opt.data.input_pipeline) {
    // Faults are allowed: a worker that comes back reads its input afresh
    // (actors/queue_runner.h). A restore rewinds the variables but not the
    // readers and queues, so such a run ends with other variables than
    // the run without the fault, as TensorFlow's queue pipelines do.
    if (opt.data.train_limit > 0) {
      return errors::InvalidArgument("--input-pipeline reads the whole training set; drop --train-limit");
    }
    const int64_t share = opt.data.batch / static_cast<int64_t>(place.graph.towers.size());
    TACT_ASSIGN_OR_RETURN(pipeline, AddInputPipeline(opt, share, &place.graph));
  }
  std::unique_ptr<TrainSummaries> summaries;
  if (!opt.summary_dir.empty()) {
    TACT_ASSIGN_OR_RETURN(summaries, TrainSummaries::Create(opt.summary_dir, opt.summary_every_steps,
                                                            total, &place.graph));
  }
  FaultPlan faults({place.local_cluster.get(), nullptr, sv.checkpoint.dir, kPauseMs});
  TACT_RETURN_IF_ERROR(faults.Init(sv.faults, sv.chaos_seed, sv.chaos_faults, total));
  // Checkpointing, restoring and recovering are the session's
  // (actors/supervised_session.h); the loop only feeds the step it names.
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<SupervisedSession> supervised,
                        SupervisedSession::Create(place.options, place.graph.def, place.graph.init_op));
  faults.set_session(&supervised->session());
  supervised->set_before_save([&faults](int64_t) { faults.StartCheckpointKills(); });
  Session& session = supervised->session();
  const ReplicatedTrainGraph& g = place.graph;
  TACT_ASSIGN_OR_RETURN(std::vector<std::unique_ptr<QueueRunner>> runners,
                        StartInputPipeline(session, pipeline));
  const bool async = !g.towers[0].train_op.empty();

  TrainResult r;
  r.parameters = g.parameters;
  r.ps = place.ps;
  r.workers = place.workers;
  const Tensor training_on = Tensor::Scalar<bool>(true);
  double train_seconds = 0, loss_sum = 0;
  int64_t epoch_steps = 0, steps_run = 0;
  // Async training runs each tower's own loop, an epoch at a time (the test
  // accuracy is measured between epochs), when there are no recovery points
  // to keep: checkpoints and recoveries are at step boundaries, so with them
  // the towers still meet after every step.
  const bool async_loops = async && !supervised->checkpointing() && sv.faults.empty() && sv.chaos_faults == 0;
  if (async_loops) {
    for (int64_t first = 0; first < total; first += per_epoch) {
      const int64_t end = std::min(total, first + per_epoch);
      AsyncProgress progress(g.towers.size());
      const auto start = std::chrono::steady_clock::now();
      Status looped = AsyncLoop(session, g, &batches, opt.data.input_pipeline, first, end, per_epoch,
                                training_on, opt.stop_requested, &progress);
      TACT_RETURN_IF_ERROR(WithPipelineCause(looped, runners));
      train_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      // Stopped early, the replicas' updates so far count as steps, a
      // replica's update as its share of one.
      r.stopped = opt.stop_requested && opt.stop_requested();
      r.steps = r.stopped ? first + progress.updates / static_cast<int64_t>(g.towers.size()) : end;
      steps_run += r.steps - first;
      r.tower_updates.resize(g.towers.size());
      for (size_t k = 0; k < g.towers.size(); ++k) r.tower_updates[k] += progress.per_tower[k];
      if (progress.updates > 0) r.train_loss = progress.loss_sum / static_cast<double>(progress.updates);
      // The replicas' losses are summed by epoch: the epoch's first step is named.
      if (progress.updates > 0) NoteLoss(r.train_loss, "in the epoch from step", first, &r);
      if (r.stopped) break;
      const TrainProgress epoch_progress{end, total, opt.data.batch, static_cast<int>(first / per_epoch),
                                         r.train_loss,
                                         static_cast<double>(steps_run * opt.data.batch) / train_seconds};
      if (opt.on_step) opt.on_step(epoch_progress);
      if (summaries != nullptr) {  // the replicas' loops meet only here
        TACT_RETURN_IF_ERROR(summaries->RunHistograms(session));
        summaries->WriteStep(epoch_progress);
      }
      TACT_ASSIGN_OR_RETURN(r.test_accuracy, TestAccuracy(session, g, test));
      if (opt.on_epoch) opt.on_epoch(static_cast<int>(first / per_epoch), r.test_accuracy);
      if (summaries != nullptr) summaries->WriteTestAccuracy(end, r.test_accuracy);
    }
  }
  // A sync step is sent ahead, while the step before runs, unless
  // something must come between the two: the test accuracy at an epoch's
  // end, a checkpoint, an injected fault, a stop. Its partitions then wait
  // in place for the step before's (Session::StartFollowing), and the
  // hand-offs between steps (the answer's way to this thread, the next
  // step's way back to the tasks) leave the cluster's path.
  std::unique_ptr<PendingRun> ahead;  // step supervised->step(), when sent ahead
  bool traced = false;                // opt.trace_step ran and was traced
  auto to_trace = [&](int64_t step) { return step == trace_step && !traced; };
  auto may_send_ahead = [&](int64_t next) {
    return opt.data.send_ahead && next < total && next % per_epoch != 0 && !to_trace(next) &&
           !supervised->saves_after_this_step() && !faults.DueBefore(next) &&
           !(summaries != nullptr && summaries->Due(next)) &&
           !(opt.stop_requested && opt.stop_requested());
  };
  while (!async_loops && supervised->step() < total) {
    if (ahead == nullptr && opt.stop_requested && opt.stop_requested()) {
      r.stopped = true;
      break;
    }
    const int64_t step = supervised->step();
    const int epoch = static_cast<int>(step / per_epoch);
    TACT_RETURN_IF_ERROR(faults.InjectBefore(step));
    // Gathered straight into each tower's feed, outside the timed step, as
    // one process's batch is.
    auto shares_of = [&](int64_t s) {
      return opt.data.input_pipeline
                 ? std::vector<Batch>()
                 : batches.GetShares(s / per_epoch, s % per_epoch, static_cast<int64_t>(g.towers.size()));
    };
    const std::vector<Batch> shares = ahead != nullptr ? std::vector<Batch>() : shares_of(step);
    const auto start = std::chrono::steady_clock::now();
    double loss = 0;
    auto train_step = [&](Session& s) -> Status {
      if (async) {
        StatusOr<double> l = AsyncStep(s, g, shares, training_on);
        if (l.ok()) loss = *l;
        return l.status();
      }
      if (to_trace(step)) {
        StatusOr<double> l = TracedSyncStep(s, g, shares, training_on, step, opt.on_trace);
        traced = l.ok();
        if (l.ok()) loss = *l;
        return l.status();
      }
      std::unique_ptr<PendingRun> run = std::move(ahead);
      if (run == nullptr) run = StartSyncStep(s, g, shares, training_on);
      if (may_send_ahead(step + 1)) {
        ahead = StartSyncStep(s, g, shares_of(step + 1), training_on);
        ++r.steps_sent_ahead;
      }
      StatusOr<double> l = SyncLoss(run->Wait());
      if (!l.ok()) {
        ahead.reset();  // waits for it: the recovery comes after
        return l.status();
      }
      loss = *l;
      return Status::OK();
    };
    const bool summarise = summaries != nullptr && summaries->Due(step + 1);
    StatusOr<SupervisedStepResult> stepped = supervised->RunStep([&](Session& s) {
      TACT_RETURN_IF_ERROR(train_step(s));
      return summarise ? summaries->RunHistograms(s) : Status::OK();
    });
    TACT_RETURN_IF_ERROR(WithPipelineCause(stepped.status(), runners));
    if (stepped->recovery) continue;
    train_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    NoteLoss(loss, "at step", step, &r);
    loss_sum += loss;
    ++epoch_steps;
    ++steps_run;
    const TrainProgress progress{step + 1, total, opt.data.batch, epoch, loss,
                                 static_cast<double>(steps_run * opt.data.batch) / train_seconds};
    if (opt.on_step) opt.on_step(progress);
    if (summarise) summaries->WriteStep(progress);
    if ((step + 1) % per_epoch == 0 || step + 1 == total) {
      r.train_loss = loss_sum / static_cast<double>(std::max<int64_t>(epoch_steps, 1));
      loss_sum = 0;
      epoch_steps = 0;
      TACT_ASSIGN_OR_RETURN(r.test_accuracy, TestAccuracy(session, g, test));
      if (opt.on_epoch) opt.on_epoch(epoch, r.test_accuracy);
      if (summaries != nullptr) summaries->WriteTestAccuracy(step + 1, r.test_accuracy);
    }
  }
  for (auto& runner : runners) TACT_RETURN_IF_ERROR(runner->Stop());
  if (opt.data.input_pipeline) r.input = "pipeline";
  const SupervisionStats& stats = supervised->stats();
  r.resumed_from = stats.resumed_from;
  r.recoveries = stats.recoveries;
  r.steps_lost = stats.steps_lost;
  r.recovery_ms_max = stats.recovery_ms_max;
  r.faults_injected = faults.injected();
  if (!async_loops) r.steps = supervised->step();
  TACT_RETURN_IF_ERROR(supervised->SaveFinal());
  // A run that resumed at its end ran no epoch here: its model is still
  // measured. (A stopped one is left to stop.)
  if (std::isnan(r.test_accuracy) && !r.stopped) {
    TACT_ASSIGN_OR_RETURN(r.test_accuracy, TestAccuracy(session, g, test));
  }
  r.images_per_sec = train_seconds > 0 ? static_cast<double>(steps_run * opt.data.batch) / train_seconds : 0;
  TACT_ASSIGN_OR_RETURN(r.variables, ReadVariables(session, g));
  r.variables_fingerprint = VariablesFingerprint(r.variables);
  if (place.options.cluster) {
    TACT_RETURN_IF_ERROR(
        ReleaseRunContainer(session, *place.options.cluster, place.options.default_container));
  }
  TACT_RETURN_IF_ERROR(supervised->Close());
  return r;
}

}  // namespace tact::apps

// `tact train`: trains a model of graph/nn/models.h on Fashion-MNIST.
//
//   tact train --model cnn --epochs 2 --json
//
// On a terminal a progress bar shows step, loss, images/s and ETA; each
// epoch ends with a line giving the test accuracy. With --json the last
// line is one JSON object with the run's figures. Bad input (a missing data
// directory, an unknown model) prints a message and exits 1.
//
// SIGINT (Ctrl-C) and SIGTERM stop a run early but whole: the step under
// way finishes, a checkpoint of the step reached is saved (with
// --checkpoint-dir; a run started again resumes there, no step lost), the
// local cluster's tasks and files go, and tact exits with 128 + the
// signal's number. A second signal ends it at once.
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <nlohmann/json.hpp>

#include "apps/cli/commands.h"
#include "apps/cli/integer_flags.h"
#include "apps/cluster/local_cluster.h"
#include "apps/train/chrome_trace.h"
#include "apps/train/metrics_log.h"
#include "apps/train/train_graph.h"
#include "apps/train/trainer.h"
#include "devices/device_factory.h"
#include "graph/nn/models.h"

namespace tact::apps {
namespace {

struct TrainFlags {
  TrainOptions options;
  std::string mode = "sync";
  std::string devices = "1";
  bool one_step_at_a_time = false;
  bool json = false;
  std::string trace;    // a Chrome trace file
  std::string metrics;  // a JSON-lines file of the run's scalars
};

// "\r step 120/600 [=====>     ] loss 0.4123  5321 img/s  ETA 0:09" on stderr.
void PrintProgress(const TrainProgress& p) {
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(kWidth * p.step / std::max<int64_t>(p.total_steps, 1));
  char bar[kWidth + 1];
  for (int i = 0; i < kWidth; ++i) bar[i] = i < filled ? '=' : (i == filled ? '>' : ' ');
  bar[kWidth] = '\0';
  const double remaining_images = static_cast<double>((p.total_steps - p.step) * p.batch);
  const int eta = p.images_per_sec > 0 ? static_cast<int>(remaining_images / p.images_per_sec) : 0;
  std::fprintf(stderr, "\r step %lld/%lld [%s] loss %.4f  %.0f img/s  ETA %d:%02d ",
               static_cast<long long>(p.step), static_cast<long long>(p.total_steps), bar, p.loss,
               p.images_per_sec, eta / 60, eta % 60);
  if (p.step == p.total_steps) std::fprintf(stderr, "\n");
}

// Checkpoints every 10 minutes unless told otherwise, as TensorFlow's
// MonitoredTrainingSession saves: a --checkpoint-dir alone would otherwise
// save only the first and the last step, and a crash lose the whole run.
constexpr int kDefaultCheckpointSecs = 600;

// "0.1234", or "not measured" for NaN (TrainResult's figures).
std::string Measured(double v) {
  if (std::isnan(v)) return "not measured";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}

// The train loss as Measured gives it, or for a diverged run "nan (not
// finite from step 1 on: the run diverged)".
std::string TrainLoss(const TrainResult& r) {
  if (r.loss_not_finite_at < 0) return Measured(r.train_loss);
  const char* value = std::isnan(r.train_loss) ? "nan" : r.train_loss > 0 ? "inf" : "-inf";
  return std::string(value) + " (not finite from step " + std::to_string(r.loss_not_finite_at) +
         " on: the run diverged)";
}

// The first stop signal, 0 before.
std::atomic<int> stop_signal{0};

void OnStopSignal(int sig) {
  if (stop_signal.exchange(sig) != 0) {
    signal(sig, SIG_DFL);
    raise(sig);  // delivered when the handler returns: the default action, at once
    return;
  }
  const char message[] = "\ntact train: stopping after this step (again to stop at once)\n";
  (void)!write(STDERR_FILENO, message, sizeof message - 1);
}

// A signal ignored at start stays ignored, as the shell asks of its
// background jobs.
void CatchStopSignals() {
  struct sigaction action = {};
  action.sa_handler = OnStopSignal;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGINT, SIGTERM}) {
    struct sigaction old = {};
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    sigaction(sig, &action, nullptr);
  }
}

int RunTrain(TrainFlags flags) {
  TrainOptions& opt = flags.options;
  // Checked here, not by CLI11, whose validation errors exit 105.
  if (flags.mode != "sync" && flags.mode != "async") {
    std::fprintf(stderr, "tact train: --mode must be sync or async, not '%s'\n", flags.mode.c_str());
    return 1;
  }
  if (opt.model.learning_rate.has_value() && !opt.model.lr_values.empty()) {
    std::fprintf(stderr, "tact train: --lr and --lr-values both give the learning rate: give one\n");
    return 1;
  }
  opt.cluster.sync = flags.mode == "sync";
  opt.data.send_ahead = !flags.one_step_at_a_time;
  StatusOr<std::map<std::string, int>> devices = ParseDeviceCounts(flags.devices);
  if (devices.ok()) {
    // Found first, replaced after: assigning to `devices` inside the loop
    // freed the map it walked (a crash in the sanitizer build).
    auto other = std::find_if(devices->begin(), devices->end(),
                              [](const auto& entry) { return entry.first != "CPU" && entry.first != "GPU"; });
    if (other != devices->end()) devices = errors::InvalidArgument("no device type '", other->first, "'");
  }
  if (!devices.ok()) {
    std::fprintf(stderr, "tact train: --devices: %s\n", devices.status().message().c_str());
    return 1;
  }
  // A process always has a CPU, for the ops no other device has kernels for.
  opt.cluster.devices = devices->count("CPU") ? devices->at("CPU") : 1;
  opt.cluster.gpus = devices->count("GPU") ? devices->at("GPU") : 0;
  if (opt.cluster.workers > 0 && opt.cluster.ps < 1) opt.cluster.ps = 1;
  opt.cluster.worker_binary = CurrentExecutable();
  std::unique_ptr<MetricsLog> metrics;
  if (!flags.metrics.empty()) {
    StatusOr<std::unique_ptr<MetricsLog>> opened = MetricsLog::Open(flags.metrics);
    if (!opened.ok()) {
      std::fprintf(stderr, "tact train: --metrics: %s\n", opened.status().ToString().c_str());
      return 1;
    }
    metrics = std::move(*opened);
  }
  const bool progress_bar = isatty(STDERR_FILENO);
  if (progress_bar || metrics != nullptr) {
    opt.on_step = [progress_bar, log = metrics.get()](const TrainProgress& p) {
      if (progress_bar) PrintProgress(p);
      if (log != nullptr) log->Step(p);
    };
  }
  opt.on_epoch = [log = metrics.get()](int epoch, double accuracy) {
    std::printf("epoch %d: test accuracy %.4f\n", epoch + 1, accuracy);
    std::fflush(stdout);
    if (log != nullptr) log->Epoch(epoch, accuracy);
  };
  if (flags.trace.empty() && opt.trace_step >= 0) {
    std::fprintf(stderr, "tact train: --trace-step needs --trace FILE\n");
    return 1;
  }
  Status traced = errors::FailedPrecondition(
      "the step to trace did not run (the run resumed after it, or stopped before it)");
  int64_t traced_step = -1;
  if (!flags.trace.empty()) {
    if (opt.trace_step < 0) opt.trace_step = TrainOptions::kTraceStepDefault;
    // Refused before training rather than after: a path that cannot be written.
    if (FILE* f = std::fopen(flags.trace.c_str(), "w")) {
      std::fclose(f);
    } else {
      std::fprintf(stderr, "tact train: --trace: cannot write '%s': %s\n", flags.trace.c_str(),
                   std::strerror(errno));
      return 1;
    }
    opt.on_trace = [&](int64_t step, const RunMetadata& meta, const GraphDef& graph) {
      traced = WriteChromeTrace(flags.trace, meta.step_stats, graph);
      traced_step = step;
    };
  }
  CatchStopSignals();
  opt.stop_requested = [] { return stop_signal.load() != 0; };
  StatusOr<TrainResult> r = Train(opt);
  if (!r.ok()) {
    std::fprintf(stderr, "tact train: %s\n", r.status().ToString().c_str());
    return 1;
  }
  if (!flags.trace.empty()) {
    if (!traced.ok()) {
      std::fprintf(stderr, "tact train: --trace: %s\n", traced.ToString().c_str());
      return 1;
    }
    std::printf("step %lld traced to %s (chrome://tracing or ui.perfetto.dev)\n",
                static_cast<long long>(traced_step), flags.trace.c_str());
  }
  if (r->stopped) {
    const std::string& dir = opt.supervision.checkpoint.dir;
    std::fprintf(stderr, "tact train: stopped by %s after step %lld; %s\n",
                 stop_signal.load() == SIGINT ? "SIGINT" : "SIGTERM",
                 static_cast<long long>(r->steps),
                 dir.empty() ? "no --checkpoint-dir, so nothing was saved"
                             : ("saved as checkpoint " + std::to_string(r->steps) + " in " + dir).c_str());
  }
  std::printf("%lld parameters; %lld steps; train loss %s; test accuracy %s; %.0f images/s\n",
              static_cast<long long>(r->parameters), static_cast<long long>(r->steps), TrainLoss(*r).c_str(),
              Measured(r->test_accuracy).c_str(), r->images_per_sec);
  if (flags.json) {
    nlohmann::json j = {
        {"model", opt.model.name},
        {"epochs", opt.data.epochs},
        {"steps", r->steps},
        {"stopped", r->stopped},
        {"batch", opt.data.batch},
        {"optimizer", opt.model.optimizer},
        {"learning_rate", LearningRate(opt.model)},
        {"lr_decay_steps", opt.model.lr_decay_steps},
        {"lr_decay_rate", opt.model.lr_decay_rate},
        {"lr_staircase", opt.model.lr_staircase},
        {"clip_norm", opt.model.clip_norm},
        {"seed", opt.model.seed},
        {"threads", opt.cluster.intra_op_threads},
        {"test_accuracy", r->test_accuracy},
        {"train_loss", r->train_loss},
        {"loss_not_finite_at_step",
         r->loss_not_finite_at >= 0 ? nlohmann::json(r->loss_not_finite_at) : nlohmann::json()},
        {"images_per_sec", r->images_per_sec},
        {"input", r->input},
        {"steps_sent_ahead", r->steps_sent_ahead},
        {"parameters", r->parameters},
        {"variables_fingerprint", r->variables_fingerprint}};
    if (!opt.model.lr_values.empty()) {
      j["learning_rate"] = nullptr;  // the schedule's values stand in its place
      j["lr_boundaries"] = opt.model.lr_boundaries;
      j["lr_values"] = opt.model.lr_values;
    }
    if (!opt.supervision.checkpoint.dir.empty() || !opt.supervision.faults.empty()) {
      j["faults_injected"] = r->faults_injected;
      j["recoveries"] = r->recoveries;
      j["steps_lost"] = r->steps_lost;
      j["recovery_ms_max"] = r->recovery_ms_max;
      j["resumed_from"] = r->resumed_from;
    }
    if (!opt.supervision.checkpoint.dir.empty()) {
      j["checkpoint_every_steps"] = opt.supervision.checkpoint.every_steps;
      j["checkpoint_every_secs"] = opt.supervision.checkpoint.every_secs;
    }
    if (r->workers > 0) {
      j["ps"] = r->ps;
      j["workers"] = r->workers;
      j["mode"] = flags.mode;
    }
    std::printf("%s\n", j.dump().c_str());
  }
  return r->stopped ? 128 + stop_signal.load() : 0;
}

// For an unsigned option: CLI11 reads "-3" into one as 2^64 - 3.
CLI::Validator Unsigned() {
  return CLI::Validator(
      [](std::string& text) { return text.rfind('-', 0) == 0 ? "must be >= 0, got " + text : std::string(); },
      "UINT");
}

}  // namespace

void AddTrainCommand(CLI::App& app, std::function<int()>& run) {
  auto flags = std::make_shared<TrainFlags>();
  CLI::App* cmd = app.add_subcommand("train", "train a model on Fashion-MNIST");
  TrainOptions& o = flags->options;
  cmd->add_option("--model", o.model.name, ModelNamesText())->check(CLI::IsMember(ModelNames()));
  cmd->add_option("--data", o.data.dir, "directory of the gzip IDX files");
  cmd->add_option("--epochs", o.data.epochs, "passes over the training set");
  cmd->add_option("--batch", o.data.batch, "images per step");
  cmd->add_option("--optimizer", o.model.optimizer, "adam, sgd, momentum, rmsprop or adagrad");
  cmd->add_option("--lr", o.model.learning_rate,
                  "the optimizer's learning rate (default: 0.001 for adam and rmsprop, "
                  "0.01 for sgd, momentum and adagrad)");
  cmd->add_option("--lr-decay-steps", o.model.lr_decay_steps,
                  "the rate decays by --lr-decay-rate every N steps (0: a constant rate)");
  cmd->add_option("--lr-decay-rate", o.model.lr_decay_rate,
                  "lr * rate ^ (step / --lr-decay-steps)");
  cmd->add_flag("--lr-staircase", o.model.lr_staircase,
                "decay in steps, once every --lr-decay-steps, not a little every step");
  cmd->add_option("--lr-boundaries", o.model.lr_boundaries,
                  "steps at which a piecewise-constant rate changes, B1,B2,... (with --lr-values)")
      ->delimiter(',');
  cmd->add_option("--lr-values", o.model.lr_values,
                  "the rate up to B1, up to B2, ..., after the last: one more than --lr-boundaries "
                  "(in place of --lr)")
      ->delimiter(',');
  cmd->add_option("--clip-norm", o.model.clip_norm,
                  "clip the gradients to this global norm (0: no clipping)");
  cmd->add_option("--seed", o.model.seed, "initial values, shuffling and dropout")->check(Unsigned());
  cmd->add_option("--threads", o.cluster.intra_op_threads, "threads of each device's compute pool");
  cmd->add_option("--devices", flags->devices,
                  "devices to place the graph on: N CPUs, or cpu:N,gpu:M (GPUs where CUDA finds them)");
  cmd->add_option("--max-steps", o.data.max_steps, "stop after this many steps (0: all)");
  cmd->add_option("--train-limit", o.data.train_limit, "use only the first N training images");
  cmd->add_option("--test-limit", o.data.test_limit, "use only the first N test images");
  cmd->add_flag("--input-pipeline", o.data.input_pipeline,
                "read the training set with input ops on each worker (readers, queues), "
                "not through the client");
  cmd->add_flag("--one-step-at-a-time", flags->one_step_at_a_time,
                "send a sync step only once the one before has returned (default: send it ahead, "
                "while the one before runs; the same values)");
  cmd->add_flag("--check-numerics", o.model.check_numerics,
                "fail a step with a NaN or Inf gradient before any variable changes");
  cmd->add_option("--ps", o.cluster.ps, "parameter-server tasks of a local cluster (with --workers)");
  cmd->add_option("--workers", o.cluster.workers,
                  "train data-parallel on a local cluster of this many worker tasks");
  cmd->add_option("--mode", flags->mode, "sync (averaged gradients) or async (updates per replica)");
  cmd->add_option("--cluster", o.cluster.cluster_file,
                  "train on this existing cluster (TF_CONFIG-style JSON)");
  cmd->add_option("--secret-file", o.cluster.secret_file,
                  "the existing cluster's secret (default: $TACT_CLUSTER_SECRET)");
  cmd->add_option("--connect-wait", o.cluster.connect_wait_secs,
                  "seconds to wait at the start for the existing cluster's tasks to answer (default 60)");
  cmd->add_option("--checkpoint-dir", o.supervision.checkpoint.dir,
                  "save checkpoints here; a run resumes from the newest good one");
  CLI::Option* every_steps = cmd->add_option("--checkpoint-every-steps", o.supervision.checkpoint.every_steps,
                                             "save every N steps");
  CLI::Option* every_secs =
      cmd->add_option("--checkpoint-every-secs", o.supervision.checkpoint.every_secs,
                      "save every N seconds (with neither this nor --checkpoint-every-steps: every " +
                          std::to_string(kDefaultCheckpointSecs) + " s; 0: only at the start and the end)");
  cmd->add_option("--checkpoint-keep", o.supervision.checkpoint.keep, "keep the newest N checkpoints");
  cmd->add_option("--fault", o.supervision.faults,
                  "inject a fault: kill:JOB:TASK@step=N, kill:JOB:TASK@checkpoint, drop:JOB:TASK@step=N, "
                  "pause:JOB:TASK@step=N, crash:JOB:TASK@step=N, corrupt-latest-checkpoint@step=N, "
                  "crash-master@step=N (repeatable)");
  CLI::Option* chaos = cmd->add_option("--chaos", o.supervision.chaos_seed,
                                       "draw --chaos-faults random faults from this seed")
                           ->check(Unsigned());
  CLI::Option* chaos_faults = cmd->add_option("--chaos-faults", o.supervision.chaos_faults,
                                              "how many random faults (default 3)");
  cmd->add_option("--max-restarts", o.supervision.max_restarts, "restarts allowed within --restart-window");
  cmd->add_option("--restart-window", o.supervision.restart_window_secs, "seconds");
  cmd->add_option("--task-wait", o.supervision.task_wait_secs,
                  "seconds a step waits for a lost task to come back");
  cmd->add_option("--step-timeout", o.cluster.step_timeout_ms,
                  "on a cluster, abort (and recover) a step running longer than this many ms");
  cmd->add_option("--metrics", flags->metrics,
                  "append each step's loss and images/s and each epoch's test accuracy to this file "
                  "(JSON lines)");
  cmd->add_option("--summary-dir", o.summary_dir,
                  "write TensorBoard's summaries (loss, images/s, each variable's histogram, test accuracy) "
                  "to an events file in this directory");
  cmd->add_option("--summary-every-steps", o.summary_every_steps, "steps between summaries (default 100)");
  cmd->add_option("--trace", flags->trace,
                  "write the node timeline of one step (--trace-step) to this Chrome trace file");
  cmd->add_option("--trace-step", flags->options.trace_step, "the step to trace (default 10)")
      ->check(NonNegativeInteger());
  cmd->add_flag("--json", flags->json, "print one JSON line at the end");
  cmd->callback([flags, chaos, chaos_faults, every_steps, every_secs, &run] {
    // A seed alone would draw nothing.
    if (chaos->count() > 0 && chaos_faults->count() == 0) flags->options.supervision.chaos_faults = 3;
    if (every_steps->count() == 0 && every_secs->count() == 0) {
      flags->options.supervision.checkpoint.every_secs = kDefaultCheckpointSecs;
    }
    run = [flags] { return RunTrain(*flags); };
  });
}

}  // namespace tact::apps

// `tact bench async --model {mlp,cnn} [--workers W] [--steps N] [--runs R]
// [--slow-ms MS]`: data-parallel training images/s on a local cluster (one
// parameter server, W workers) one step at a time (sync: every worker's
// share of each step, then the next step) and asynchronously (each
// worker's replica in its own loop, apps/train/trainer.cc), each as it is
// and with worker 1 slowed down: stopped (SIGSTOP) MS of every 2 MS, so it
// runs at about half speed. A sync step waits for the slow worker; an async
// replica does not, so its images/s falls only by the slow worker's share.
// The four settings alternate R times; the JSON line gives each one's min,
// median and max.
#include <signal.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <map>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "apps/bench/bench.h"
#include "apps/bench/spread.h"
#include "apps/cluster/local_cluster.h"
#include "apps/train/trainer.h"
#include "graph/nn/models.h"

namespace tact::apps {
namespace {

struct AsyncBenchFlags {
  std::string model = "mlp";
  std::string data = kDefaultDataDir;
  int workers = 2;
  int64_t steps = 300;
  int runs = 3;
  int slow_ms = 10;
  bool json = true;
};

// Stops the task's process `ms` of every 2 * `ms` until destroyed.
class Slowdown {
 public:
  Slowdown(LocalCluster* cluster, std::string task, int ms) {
    thread_ = std::thread([this, cluster, task = std::move(task), ms] {
      while (!done_.load()) {
        (void)cluster->Signal(task, SIGSTOP);
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        (void)cluster->Signal(task, SIGCONT);
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
      }
    });
  }
  ~Slowdown() {
    done_.store(true);
    thread_.join();
  }

 private:
  std::atomic<bool> done_{false};
  std::thread thread_;
};

StatusOr<double> ImagesPerSec(const AsyncBenchFlags& f, bool sync, bool slowed) {
  LocalClusterOptions c;
  c.binary = CurrentExecutable();
  c.jobs = {{"ps", 1}, {"worker", f.workers}};
  c.threads_per_device = 1;
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<LocalCluster> cluster, LocalCluster::Start(c));
  const std::string secret_file = cluster->dir() + "/secret";
  std::ofstream(secret_file) << cluster->secret() << "\n";
  TrainOptions opt;
  opt.model.name = f.model;
  opt.data.dir = f.data;
  opt.data.max_steps = f.steps;
  opt.data.test_limit = 1000;  // evaluation is not timed; keep it short
  opt.cluster.intra_op_threads = 1;
  opt.cluster.sync = sync;
  opt.cluster.cluster_file = cluster->dir() + "/cluster.json";
  opt.cluster.secret_file = secret_file;
  // Pausing the worker for longer than a health deadline would make it
  // lost: the slowdown's pauses are far shorter than that.
  std::unique_ptr<Slowdown> slow;
  if (slowed) slow = std::make_unique<Slowdown>(cluster.get(), "/job:worker/replica:0/task:1", f.slow_ms);
  StatusOr<TrainResult> r = Train(opt);
  slow.reset();
  TACT_RETURN_IF_ERROR(r.status());
  return r->images_per_sec;
}

int RunAsyncBench(const AsyncBenchFlags& f) {
  if (f.runs < 1 || f.workers < 2 || f.slow_ms < 1) {
    std::fprintf(stderr, "tact bench async: --runs >= 1, --workers >= 2 and --slow-ms >= 1\n");
    return 1;
  }
  std::map<std::string, std::vector<double>> results;
  for (int i = 0; i < f.runs; ++i) {
    for (bool sync : {true, false}) {
      for (bool slowed : {false, true}) {
        const std::string name = std::string(sync ? "sync" : "async") + (slowed ? "_slowed" : "");
        StatusOr<double> r = ImagesPerSec(f, sync, slowed);
        if (!r.ok()) {
          std::fprintf(stderr, "tact bench async: %s: %s\n", name.c_str(), r.status().ToString().c_str());
          return 1;
        }
        results[name].push_back(*r);
      }
    }
  }
  nlohmann::ordered_json j = {{"model", f.model}, {"steps", f.steps}, {"workers", f.workers},
                              {"slow_ms", f.slow_ms}};
  for (const char* name : {"sync", "sync_slowed", "async", "async_slowed"}) {
    j[std::string(name) + "_images_per_sec"] = Spread(results[name]);
  }
  j["sync_slowed_over_sync"] = Median(results["sync_slowed"]) / Median(results["sync"]);
  j["async_slowed_over_async"] = Median(results["async_slowed"]) / Median(results["async"]);
  std::printf("%s\n", j.dump().c_str());
  return 0;
}

}  // namespace

void AddBenchAsync(CLI::App& bench, std::function<int()>& run) {
  auto f = std::make_shared<AsyncBenchFlags>();
  CLI::App* cmd = bench.add_subcommand(
      "async", "cluster training images/s, one step at a time and asynchronous, with a worker slowed");
  cmd->add_option("--model", f->model, ModelNamesText())->check(CLI::IsMember(ModelNames()));
  cmd->add_option("--data", f->data, "directory of the gzip IDX files");
  cmd->add_option("--workers", f->workers, "worker tasks (>= 2; worker 1 is the one slowed)");
  // 0 would be the whole epoch (TrainOptions' max_steps), reported as 0.
  cmd->add_option("--steps", f->steps, "timed steps per run")->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  cmd->add_option("--runs", f->runs, "runs of each setting, alternating");
  cmd->add_option("--slow-ms", f->slow_ms, "the slowed worker is stopped this long of every twice this");
  cmd->add_flag("--json", f->json, "the output is always one JSON line; accepted for symmetry");
  cmd->callback([f, &run] { run = [f] { return RunAsyncBench(*f); }; });
}

}  // namespace tact::apps

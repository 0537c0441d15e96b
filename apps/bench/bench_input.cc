// `tact bench input --model {mlp,cnn} [--workers W] [--steps N] [--runs R]`:
// training images/s with the training set fed by the client (the feed
// path) and read by input ops on each tower's device (`--input-pipeline`,
// apps/train/input_pipeline.h), in one process, or with --workers W on a
// local cluster of one parameter server and W workers. The two alternate R
// times; the JSON line gives each one's min, median and max and the test
// accuracies, and the ratio of the medians.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "apps/bench/bench.h"
#include "apps/bench/spread.h"
#include "apps/cluster/local_cluster.h"
#include "apps/train/trainer.h"
#include "graph/nn/models.h"

namespace tact::apps {
namespace {

struct InputBenchFlags {
  std::string model = "mlp";
  std::string data = kDefaultDataDir;
  int workers = 0;
  int64_t steps = 600;
  int runs = 3;
  bool json = true;
};

StatusOr<TrainResult> RunOnce(const InputBenchFlags& f, bool pipeline) {
  TrainOptions opt;
  opt.model.name = f.model;
  opt.data.dir = f.data;
  opt.data.max_steps = f.steps;
  opt.data.input_pipeline = pipeline;
  if (f.workers > 0) {
    opt.cluster.ps = 1;
    opt.cluster.workers = f.workers;
    opt.cluster.worker_binary = CurrentExecutable();
  }
  return Train(opt);
}

int RunInputBench(const InputBenchFlags& f) {
  if (f.runs < 1 || f.workers < 0 || f.steps < 1) {
    std::fprintf(stderr, "tact bench input: --runs and --steps must be >= 1, --workers >= 0\n");
    return 1;
  }
  std::vector<double> speed[2], accuracy[2];
  for (int i = 0; i < f.runs; ++i) {
    for (int pipeline = 0; pipeline < 2; ++pipeline) {
      StatusOr<TrainResult> r = RunOnce(f, pipeline == 1);
      if (!r.ok()) {
        std::fprintf(stderr, "tact bench input: %s: %s\n", pipeline ? "pipeline" : "feed",
                     r.status().ToString().c_str());
        return 1;
      }
      speed[pipeline].push_back(r->images_per_sec);
      accuracy[pipeline].push_back(r->test_accuracy);
    }
  }
  const nlohmann::ordered_json j = {{"model", f.model},
                                    {"steps", f.steps},
                                    {"workers", f.workers},
                                    {"feed_images_per_sec", Spread(speed[0])},
                                    {"pipeline_images_per_sec", Spread(speed[1])},
                                    {"feed_test_accuracy", accuracy[0]},
                                    {"pipeline_test_accuracy", accuracy[1]},
                                    {"pipeline_over_feed", Median(speed[1]) / Median(speed[0])}};
  std::printf("%s\n", j.dump().c_str());
  return 0;
}

}  // namespace

void AddBenchInput(CLI::App& bench, std::function<int()>& run) {
  auto f = std::make_shared<InputBenchFlags>();
  CLI::App* cmd = bench.add_subcommand("input", "training images/s, fed by the client and read by input ops");
  cmd->add_option("--model", f->model, ModelNamesText())->check(CLI::IsMember(ModelNames()));
  cmd->add_option("--data", f->data, "directory of the gzip IDX files");
  cmd->add_option("--workers", f->workers, "worker tasks of a local cluster (0: one process)");
  cmd->add_option("--steps", f->steps, "training steps per run");
  cmd->add_option("--runs", f->runs, "runs of each input, alternating");
  cmd->add_flag("--json", f->json, "the output is always one JSON line; accepted for symmetry");
  cmd->callback([f, &run] { run = [f] { return RunInputBench(*f); }; });
}

}  // namespace tact::apps

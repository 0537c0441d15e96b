// `tact bench distributed --model {mlp,cnn} [--ps P] [--workers W]
// [--steps N] [--runs R]`: data-parallel training images/s on a local
// cluster (P parameter servers and W worker processes, sync mode) beside
// the same global batch, network, optimizer and data in one process, in
// the same run. The two alternate R times, so that the machine's changing
// load falls on both alike; the JSON line gives the min, median and max of
// each and the ratio of the medians (the cluster's share of one process's
// speed: its fixed cost per step, and the tensors it moves between tasks),
// and the CPU time a step takes on each side (all the cluster's processes
// together): on a machine whose cores the cluster fills, the ratio of the
// CPU times bounds the ratio of the speeds.
//
// Both sides use one compute thread per device, the setting `tact train`
// runs the main job's cluster with: the cluster's processes already share
// the cores. Both send each step ahead, as `tact train` does, unless
// `--one-step-at-a-time`.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "apps/bench/bench.h"
#include "apps/bench/spread.h"
#include "apps/cluster/local_cluster.h"
#include "apps/cluster/process_cpu.h"
#include "apps/train/trainer.h"
#include "graph/nn/models.h"

namespace tact::apps {
namespace {

struct DistributedBenchFlags {
  std::string model = "mlp";
  std::string data = kDefaultDataDir;
  int ps = 1;
  int workers = 2;
  int64_t steps = 300;
  int64_t batch = 100;
  int runs = 3;
  bool one_step_at_a_time = false;
  bool json = true;
};

struct SideResult {
  double images_per_sec = 0;
  double cpu_ms_per_step = 0;  // this process and its tasks, over the steps after the first tenth
};

StatusOr<SideResult> RunSide(const DistributedBenchFlags& f, bool cluster) {
  TrainOptions opt;
  opt.model.name = f.model;
  opt.data.dir = f.data;
  opt.data.batch = f.batch;
  opt.data.max_steps = f.steps;
  opt.data.test_limit = 1000;  // evaluation is not timed; keep it short
  opt.cluster.intra_op_threads = 1;
  opt.data.send_ahead = !f.one_step_at_a_time;
  if (cluster) {
    opt.cluster.ps = f.ps;
    opt.cluster.workers = f.workers;
    opt.cluster.sync = true;
    opt.cluster.worker_binary = CurrentExecutable();
  }
  // The first tenth of the steps (registration, first touches) is left
  // out of the CPU figure.
  const int64_t from = std::max<int64_t>(1, f.steps / 10);
  double cpu_from = 0, cpu_to = 0;
  opt.on_step = [&](const TrainProgress& p) {
    if (p.step == from) cpu_from = ProcessTreeCpuSeconds();
    if (p.step == p.total_steps) cpu_to = ProcessTreeCpuSeconds();
  };
  TACT_ASSIGN_OR_RETURN(TrainResult r, Train(opt));
  SideResult side;
  side.images_per_sec = r.images_per_sec;
  if (f.steps > from) side.cpu_ms_per_step = (cpu_to - cpu_from) * 1000 / static_cast<double>(f.steps - from);
  return side;
}

int RunDistributedBench(const DistributedBenchFlags& f) {
  if (f.runs < 1 || f.workers < 1 || f.ps < 1) {
    std::fprintf(stderr, "tact bench distributed: --runs, --ps and --workers must be >= 1\n");
    return 1;
  }
  std::vector<double> one, many, one_cpu, many_cpu;
  for (int i = 0; i < f.runs; ++i) {
    for (bool cluster : {false, true}) {
      StatusOr<SideResult> r = RunSide(f, cluster);
      if (!r.ok()) {
        std::fprintf(stderr, "tact bench distributed: %s: %s\n", cluster ? "cluster" : "one process",
                     r.status().ToString().c_str());
        return 1;
      }
      (cluster ? many : one).push_back(r->images_per_sec);
      (cluster ? many_cpu : one_cpu).push_back(r->cpu_ms_per_step);
    }
  }
  const nlohmann::ordered_json j = {{"model", f.model},
                                    {"batch", f.batch},
                                    {"steps", f.steps},
                                    {"ps", f.ps},
                                    {"workers", f.workers},
                                    {"send_ahead", !f.one_step_at_a_time},
                                    {"one_process_images_per_sec", Spread(one)},
                                    {"cluster_images_per_sec", Spread(many)},
                                    {"cluster_over_one_process", Median(many) / Median(one)},
                                    {"one_process_cpu_ms_per_step", Spread(one_cpu)},
                                    {"cluster_cpu_ms_per_step", Spread(many_cpu)}};
  std::printf("%s\n", j.dump().c_str());
  return 0;
}

}  // namespace

void AddBenchDistributed(CLI::App& bench, std::function<int()>& run) {
  auto f = std::make_shared<DistributedBenchFlags>();
  CLI::App* cmd = bench.add_subcommand("distributed", "cluster training images/s beside one process's");
  cmd->add_option("--model", f->model, ModelNamesText())->check(CLI::IsMember(ModelNames()));
  cmd->add_option("--data", f->data, "directory of the gzip IDX files");
  cmd->add_option("--ps", f->ps, "parameter-server tasks");
  cmd->add_option("--workers", f->workers, "worker tasks, each with a share of every batch");
  // 0 would be the whole epoch (TrainOptions' max_steps), reported as 0.
  cmd->add_option("--steps", f->steps, "timed steps per run")->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  cmd->add_option("--batch", f->batch, "images per step, all workers together");
  cmd->add_option("--runs", f->runs, "runs of each side, alternating");
  cmd->add_flag("--one-step-at-a-time", f->one_step_at_a_time,
                "each side sends a step once the one before has returned "
                "(as tact train --one-step-at-a-time)");
  cmd->add_flag("--json", f->json, "the output is always one JSON line; accepted for symmetry");
  cmd->callback([f, &run] { run = [f] { return RunDistributedBench(*f); }; });
}

}  // namespace tact::apps

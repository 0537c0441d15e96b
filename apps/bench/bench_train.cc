// `tact bench train`: training images/s of tact beside PyTorch's, for the
// same network, batch and optimizer, on the same data, in one run. Both
// run at 1 and 2 threads (threads cost small ops more than they gain, so the
// best setting differs by model), and the JSON line gives each figure and
// tact's best over PyTorch's best. PyTorch runs only where `python3` can
// import torch (Debian's python3-torch); otherwise its figures are null.
//
// PyTorch's thread count does not bound OpenBLAS's own threads, and its
// OpenMP threads spin while OpenBLAS works, so on 2 cores its plain setting
// is often not its best. At each thread count it also runs with
// OMP_WAIT_POLICY=PASSIVE and with OPENBLAS_NUM_THREADS=1; pytorch_best is
// the best of all its runs and pytorch_best_setting says which.
//
// tact's images/s also become GFLOP/s, from the training graph's own FLOP
// count (the static cost model's: MatMul, Conv2D and its backprops, one an
// element for the rest), beside an FMA loop measured in the same run on
// the same number of threads: the fraction of the machine's peak reached.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "apps/bench/bench.h"
#include "apps/bench/fma_peak.h"
#include "apps/train/train_graph.h"
#include "apps/train/trainer.h"
#include "graph/nn/models.h"
#include "graph/shape_refiner.h"
#include "placement/cost_model.h"

namespace tact::apps {
namespace {

struct TrainBenchFlags {
  std::string model = "mlp";
  std::string data = kDefaultDataDir;
  int64_t steps = 200;
  int64_t batch = 100;
  std::string python = "/usr/bin/python3";
  bool json = true;
  int gpus = 0;  // > 0: also train with the GPUs beside one CPU device
};

StatusOr<double> TactImagesPerSec(const TrainBenchFlags& f, int threads, int gpus = 0) {
  TrainOptions opt;
  opt.model.name = f.model;
  opt.data.dir = f.data;
  opt.data.batch = f.batch;
  opt.data.max_steps = f.steps;
  opt.data.test_limit = 1000;  // evaluation is not timed; keep it short
  opt.cluster.intra_op_threads = threads;
  opt.cluster.gpus = gpus;
  TACT_ASSIGN_OR_RETURN(TrainResult r, Train(opt));
  return r.images_per_sec;
}

// FLOPs of one training step per image, counted on the graph.
StatusOr<double> TrainingFlopsPerImage(const TrainBenchFlags& f) {
  TrainOptions opt;
  opt.model.name = f.model;
  TACT_ASSIGN_OR_RETURN(TrainGraph g, BuildTrainGraph(opt));
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, Graph::FromGraphDef(g.def));
  TACT_RETURN_IF_ERROR(InferShapes(graph.get()));
  StaticCostOptions count;
  count.unknown_dim = f.batch;  // the batch is the graph's one unknown dimension
  double flops = 0;
  for (const Node* n : graph->nodes()) flops += EstimatedFlops(*n, count);
  return flops / static_cast<double>(f.batch);
}

// The environment settings PyTorch runs under at each thread count, by the
// suffix of their JSON keys.
struct PeerSetting {
  const char* suffix;
  const char* env;
};
constexpr PeerSetting kPeerSettings[] = {
    {"", ""},
    {"_omp_passive", "OMP_WAIT_POLICY=PASSIVE "},
    {"_openblas_1t", "OPENBLAS_NUM_THREADS=1 "},
};

// images/s from scripts/peer/pytorch_train.py, or a negative number if it
// cannot run here.
double PytorchImagesPerSec(const TrainBenchFlags& f, int threads, const char* env) {
  const std::string cmd = std::string(env) + f.python + " " + PeerScript("pytorch_train.py") +
                          " --model " + f.model + " --data " + f.data + " --steps " +
                          std::to_string(f.steps) + " --batch " + std::to_string(f.batch) +
                          " --threads " + std::to_string(threads) + " 2>/dev/null";
  const std::optional<std::string> out = CommandOutput(cmd);
  if (!out) return -1;
  const nlohmann::json j = nlohmann::json::parse(*out, nullptr, false);
  if (j.is_discarded() || !j.contains("images_per_sec")) return -1;
  return j["images_per_sec"].get<double>();
}

nlohmann::json OrNull(double v) { return v < 0 ? nlohmann::json() : nlohmann::json(v); }

int RunTrainBench(const TrainBenchFlags& f) {
  nlohmann::json j = {{"model", f.model}, {"steps", f.steps}, {"batch", f.batch}};
  StatusOr<double> flops_per_image = TrainingFlopsPerImage(f);
  if (!flops_per_image.ok()) {
    std::fprintf(stderr, "tact bench train: %s\n", flops_per_image.status().ToString().c_str());
    return 1;
  }
  j["gflop_per_image"] = *flops_per_image / 1e9;
  double tact_best = 0, torch_best = -1;
  std::string torch_best_setting;
  for (int threads : {1, 2}) {
    const std::string t = std::to_string(threads) + "t";
    StatusOr<double> ours = TactImagesPerSec(f, threads);
    if (!ours.ok()) {
      std::fprintf(stderr, "tact bench train: %s\n", ours.status().ToString().c_str());
      return 1;
    }
    j["tact_images_per_sec_" + t] = *ours;
    tact_best = std::max(tact_best, *ours);
    const double gflops = *ours * *flops_per_image / 1e9;
    const double peak = FmaPeakGflops(threads);
    j["tact_gflops_" + t] = gflops;
    j["fma_peak_gflops_" + t] = peak;
    j["tact_fraction_of_peak_" + t] = gflops / peak;
    for (const PeerSetting& s : kPeerSettings) {
      const double theirs = PytorchImagesPerSec(f, threads, s.env);
      j["pytorch_images_per_sec_" + t + s.suffix] = OrNull(theirs);
      if (theirs > torch_best) {
        torch_best = theirs;
        torch_best_setting = t + s.suffix;
      }
      // Without torch the other settings would fail the same way.
      if (theirs < 0) break;
    }
  }
  if (f.gpus > 0) {
    // The yardstick: the GPU step against the 2-thread CPU step.
    StatusOr<double> gpu = TactImagesPerSec(f, 2, f.gpus);
    if (!gpu.ok()) {
      std::fprintf(stderr, "tact bench train: with %d GPU(s): %s\n", f.gpus, gpu.status().ToString().c_str());
      return 1;
    }
    j["gpus"] = f.gpus;
    j["tact_images_per_sec_gpu"] = *gpu;
    j["gpu_over_cpu_2t"] = *gpu / j["tact_images_per_sec_2t"].get<double>();
  }
  j["tact_best"] = tact_best;
  j["pytorch_best"] = OrNull(torch_best);
  j["pytorch_best_setting"] = torch_best < 0 ? nlohmann::json() : nlohmann::json(torch_best_setting);
  j["tact_over_pytorch"] = torch_best > 0 ? nlohmann::json(tact_best / torch_best) : nlohmann::json();
  std::printf("%s\n", j.dump().c_str());
  return 0;
}

}  // namespace

void AddBenchTrain(CLI::App& bench, std::function<int()>& run) {
  auto f = std::make_shared<TrainBenchFlags>();
  CLI::App* cmd = bench.add_subcommand("train", "training images/s beside PyTorch's");
  cmd->add_option("--model", f->model, ModelNamesText())->check(CLI::IsMember(ModelNames()));
  cmd->add_option("--data", f->data, "directory of the gzip IDX files");
  // 0 would be the whole epoch (TrainOptions' max_steps), reported as 0.
  cmd->add_option("--steps", f->steps, "timed steps per measurement")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  cmd->add_option("--batch", f->batch, "images per step");
  cmd->add_option("--python", f->python, "the interpreter that runs the PyTorch peer");
  cmd->add_option("--gpus", f->gpus, "also train on this many GPUs (beside one CPU device)")
      ->check(CLI::Range(0, 64));
  cmd->add_flag("--json", f->json, "the output is always one JSON line; accepted for symmetry");
  cmd->callback([f, &run] { run = [f] { return RunTrainBench(*f); }; });
}

}  // namespace tact::apps

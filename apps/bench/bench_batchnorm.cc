// `tact bench batchnorm --shape N,H,W,C [--threads T] [--runs R] [--json]`:
// batch normalization in training mode on a float32 NHWC batch (the cnn's
// first activation by default), beside its peers in the same run:
//   forward_ms    FusedBatchNormV3 through Session::Run (y and the running
//                 averages)
//   train_ms      the same with FusedBatchNormGradV3 given dy (the gradients
//                 for x, gamma and beta): a training step's share
//   memcpy_ms     one memcpy of the batch's bytes, the memory's limit: a
//                 forward pass must at least read x and write y, the
//                 gradient read dy and x and write dx
//   pytorch_*_ms  F.batch_norm on the same shape, channels-last
//                 (scripts/peer/pytorch_batchnorm.py), null without PyTorch
// Each figure is per call: min/median/max over R runs, each the median of
// 9 calls, after 0.3 s of warm-up calls.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "actors/session.h"
#include "apps/bench/bench.h"
#include "apps/bench/spread.h"
#include "graph/gradients/gradients.h"
#include "graph/ops/all_ops.h"

namespace tact::apps {
namespace {

struct Options {
  std::vector<int64_t> shape = {100, 28, 28, 32};
  int threads = 1;
  int runs = 5;
  bool json = false;
  std::string python = "/usr/bin/python3";
};

constexpr int kCallsPerRun = 9;

// Milliseconds per call of `call`: per run, the median of kCallsPerRun
// calls, after warm-up calls for 0.3 s. A process's first 0.1-0.2 s of
// such calls ran 2-3x slower here (whichever phase came first), as fresh
// memory is first touched; the figures are the steady state.
StatusOr<std::vector<double>> Time(int runs, const std::function<Status()>& call) {
  const auto warm_until = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
  for (int i = 0; i < 2 || std::chrono::steady_clock::now() < warm_until; ++i) {
    TACT_RETURN_IF_ERROR(call());
  }
  std::vector<double> out;
  for (int r = 0; r < runs; ++r) {
    std::vector<double> ms;
    for (int i = 0; i < kCallsPerRun; ++i) {
      const auto start = std::chrono::steady_clock::now();
      TACT_RETURN_IF_ERROR(call());
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                       .count());
    }
    out.push_back(Median(ms));
  }
  return out;
}

Tensor Filled(const TensorShape& shape, float step) {
  Tensor t(DT_FLOAT, shape);
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.NumElements(); ++i) p[i] = static_cast<float>(i % 251) * step;
  return t;
}

// {forward_ms, train_ms} of tact.
StatusOr<std::pair<std::vector<double>, std::vector<double>>> TimeTact(const Options& o) {
  const TensorShape shape(o.shape);
  const int64_t c = o.shape[3];
  Scope s = Scope::NewRootScope();
  Output x = Placeholder(s.WithOpName("x"), DT_FLOAT, PartialTensorShape(o.shape));
  Output dy = Placeholder(s.WithOpName("dy"), DT_FLOAT, PartialTensorShape(o.shape));
  Tensor ones(DT_FLOAT, TensorShape({c}));
  std::fill(ones.data<float>(), ones.data<float>() + c, 1.0f);
  Output gamma = Const(s, ones), beta = ZerosLike(s, gamma);
  FusedBatchNormOutputs bn = FusedBatchNorm(
      s.WithOpName("bn"), x, gamma, beta, beta, gamma,
      {.epsilon = 1e-3f, .exponential_avg_factor = 0.01f, .is_training = true});
  std::vector<Output> grads;
  TACT_RETURN_IF_ERROR(AddSymbolicGradients(s, {bn.y}, {x, gamma, beta}, {dy}, &grads));
  for (size_t i = 0; i < grads.size(); ++i) Identity(s.WithOpName("d" + std::to_string(i)), grads[i]);
  TACT_RETURN_IF_ERROR(s.status());
  TACT_ASSIGN_OR_RETURN(GraphDef def, s.ToGraphDef());
  SessionOptions so;
  so.intra_op_threads = o.threads;
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Create(so));
  TACT_RETURN_IF_ERROR(session->Extend(def));
  const std::vector<std::pair<std::string, Tensor>> feeds = {
      {"x:0", Filled(shape, 0.01f)}, {"dy:0", Filled(shape, -0.003f)}};
  TACT_ASSIGN_OR_RETURN(std::vector<double> forward, Time(o.runs, [&] {
                          return session->Run(feeds, {"bn:0", "bn:1", "bn:2"}, {}).status();
                        }));
  TACT_ASSIGN_OR_RETURN(std::vector<double> train, Time(o.runs, [&] {
                          return session->Run(feeds, {"bn:0", "bn:1", "bn:2", "d0:0", "d1:0", "d2:0"},
                                              {}).status();
                        }));
  return std::make_pair(forward, train);
}

std::vector<double> TimeMemcpy(const Options& o) {
  const size_t bytes = static_cast<size_t>(TensorShape(o.shape).num_elements()) * sizeof(float);
  std::vector<char> from(bytes, 1), to(bytes, 0);
  return *Time(o.runs, [&] {
    std::memcpy(to.data(), from.data(), bytes);
    return Status::OK();
  });
}

// PyTorch's figures, or null where the peer cannot run.
nlohmann::ordered_json TimePytorch(const Options& o) {
  std::string cmd = o.python + " " + PeerScript("pytorch_batchnorm.py") + " --shape";
  for (int64_t d : o.shape) cmd += " " + std::to_string(d);
  cmd += " --threads " + std::to_string(o.threads) + " --runs " + std::to_string(o.runs) +
         " --reps " + std::to_string(kCallsPerRun) + " 2>/dev/null";
  nlohmann::ordered_json none = {{"pytorch_forward_ms", nullptr}, {"pytorch_train_ms", nullptr}};
  const std::optional<std::string> out = CommandOutput(cmd);
  if (!out) return none;
  const nlohmann::json j = nlohmann::json::parse(*out, nullptr, false);
  if (j.is_discarded() || !j.contains("forward_ms") || !j.contains("train_ms")) return none;
  return {{"pytorch_forward_ms", Spread(j["forward_ms"].get<std::vector<double>>())},
          {"pytorch_train_ms", Spread(j["train_ms"].get<std::vector<double>>())}};
}

int Run(const Options& o) {
  if (o.shape.size() != 4) {
    std::fprintf(stderr, "tact bench batchnorm: --shape takes N,H,W,C\n");
    return 1;
  }
  auto tact = TimeTact(o);
  if (!tact.ok()) {
    std::fprintf(stderr, "tact bench batchnorm: %s\n", tact.status().ToString().c_str());
    return 1;
  }
  nlohmann::ordered_json line = {{"shape", o.shape}, {"threads", o.threads}};
  line["forward_ms"] = Spread(tact->first);
  line["train_ms"] = Spread(tact->second);
  line["memcpy_ms"] = Spread(TimeMemcpy(o));
  line.update(TimePytorch(o));
  if (!o.json) {
    std::printf("batch norm on [%ld, %ld, %ld, %ld], %d thread(s): forward %.3f ms, forward and "
                "gradients %.3f ms, a memcpy of the batch %.3f ms\n",
                static_cast<long>(o.shape[0]), static_cast<long>(o.shape[1]),
                static_cast<long>(o.shape[2]), static_cast<long>(o.shape[3]), o.threads,
                double(line["forward_ms"]["median"]), double(line["train_ms"]["median"]),
                double(line["memcpy_ms"]["median"]));
  }
  std::printf("%s\n", line.dump().c_str());
  return 0;
}

}  // namespace

void AddBenchBatchNorm(CLI::App& bench, std::function<int()>& run) {
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = bench.add_subcommand(
      "batchnorm", "batch normalization's forward and gradient beside a memcpy and PyTorch");
  cmd->add_option("--shape", opts->shape, "N,H,W,C")->delimiter(',')->expected(4);
  cmd->add_option("--threads", opts->threads, "threads of the device")->check(CLI::Range(1, 64));
  cmd->add_option("--runs", opts->runs, "timed runs")->check(CLI::Range(1, 1000));
  cmd->add_option("--python", opts->python, "the interpreter that runs the PyTorch peer");
  cmd->add_flag("--json", opts->json, "print only the JSON line");
  cmd->callback([opts, &run] { run = [opts] { return Run(*opts); }; });
}

}  // namespace tact::apps

// `tact bench embedding --vocab V --dim D --batch B [--runs R] [--json]`:
// the gradient of an embedding lookup (Gather of B rows of a [V, D] table),
// through Session::Run, beside its peers in the same run:
//   grad_ms       tact's gradient (UnsortedSegmentSum: zero the table's
//                 gradient, add the B picked rows back)
//   scatter_ms    the same in a plain loop: memset, then B row additions
//                 (the physical limit: the gradient is V * D floats)
//   one_hot_ms    the gradient as OneHot(ids)^T * g, the formulation tact
//                 used before UnsortedSegmentSum (B * V * D multiply-adds;
//                 null where the B x V matrix would pass 1 GiB)
// and a whole training step (Gather, the loss, its gradient and the update
// by --optimizer sgd, adagrad (the default) or adam) on a [V, D] variable:
//   train_sparse_ms   the optimizer's sparse update of the picked rows (for
//                     adam, lazy_adam's)
//   train_dense_ms    the same with sparse_updates off: the dense gradient
//                     and an update of every row
//   pytorch_train_ms  PyTorch's step with nn.Embedding(sparse=True) and the
//                     same optimizer, SparseAdam for adam
//                     (scripts/peer/pytorch_embedding.py; null where
//                     PyTorch is missing)
// Each figure is per Run (or per loop), min/median/max over R runs of 5.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "actors/session.h"
#include "apps/bench/bench.h"
#include "apps/bench/spread.h"
#include "graph/gradients/gradients.h"
#include "graph/nn/initializers.h"
#include "graph/nn/optimizers.h"
#include "graph/nn/variables.h"
#include "graph/ops/all_ops.h"

namespace tact::apps {
namespace {

struct Options {
  int64_t vocab = 50000, dim = 64, batch = 512;
  int runs = 7;
  std::string optimizer = "adagrad";
  std::string python = "/usr/bin/python3";
  bool json = false;
};

constexpr int kRepsPerRun = 5;

double Ms(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// The ids a step picks: spread over the table, some picked twice.
Tensor Ids(const Options& o) {
  Tensor ids(DT_INT32, {o.batch});
  for (int64_t i = 0; i < o.batch; ++i) {
    ids.data<int32_t>()[i] = static_cast<int32_t>((i * 7919) % o.vocab);
  }
  return ids;
}

// A session whose "grad" is d sum(Gather(table, ids)) / d table, by
// AddSymbolicGradients or (`one_hot`) by the one-hot product.
StatusOr<std::unique_ptr<Session>> GradientSession(const Options& o, bool one_hot) {
  Scope s = Scope::NewRootScope();
  Output table = Placeholder(s.WithOpName("table"), DT_FLOAT);
  Output ids = Placeholder(s.WithOpName("ids"), DT_INT32);
  Output rows = Gather(s, table, ids);
  Output loss = Sum(s, rows, {0, 1});
  if (one_hot) {
    Output picks = OneHot(s, ids, static_cast<int32_t>(o.vocab), 1.0f, 0.0f);
    MatMul(s.WithOpName("grad"), picks, OnesLike(s, rows), true, false);
  } else {
    std::vector<Output> grads;
    TACT_RETURN_IF_ERROR(AddSymbolicGradients(s, {loss}, {table}, {}, &grads));
    Identity(s.WithOpName("grad"), grads[0]);
  }
  TACT_RETURN_IF_ERROR(s.status());
  TACT_ASSIGN_OR_RETURN(GraphDef def, s.ToGraphDef());
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Create());
  TACT_RETURN_IF_ERROR(session->Extend(def));
  return session;
}

// Milliseconds per Run of `session`, one figure per run of kRepsPerRun,
// after two warm-up Runs; InvalidArgument if the gradient is not `want`'s.
StatusOr<std::vector<double>> TimeSession(Session* session, const Tensor& table, const Tensor& ids,
                                          int runs, double want_sum) {
  const std::vector<std::pair<std::string, Tensor>> feeds = {{"table:0", table}, {"ids:0", ids}};
  for (int i = 0; i < 2; ++i) {
    TACT_ASSIGN_OR_RETURN(std::vector<Tensor> out, session->Run(feeds, {"grad:0"}, {}));
    double sum = 0;
    for (int64_t k = 0; k < out[0].NumElements(); ++k) sum += out[0].data<float>()[k];
    if (sum != want_sum) {
      return errors::Internal("the gradient's elements sum to ", sum, ", not ", want_sum);
    }
  }
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kRepsPerRun; ++i) {
      TACT_RETURN_IF_ERROR(session->Run(feeds, {"grad:0"}, {}).status());
    }
    ms.push_back(Ms(start) / kRepsPerRun);
  }
  return ms;
}

// A session whose node `*train` is one step of the optimizer on a [V, D]
// variable "table" (initialised by "init") from d sum(Gather(table, ids)).
StatusOr<std::unique_ptr<Session>> TrainSession(const Options& o, bool sparse,
                                                std::string* train) {
  Scope s = Scope::NewRootScope();
  Output table = VariableWithInit(s, "table", TensorShape({o.vocab, o.dim}), ConstantInit(0.5));
  Output ids = Placeholder(s.WithOpName("ids"), DT_INT32);
  Output loss = Sum(s, Gather(s, table, ids), {0, 1});
  std::vector<Output> grads;
  TACT_RETURN_IF_ERROR(AddSymbolicGradients(s, {loss}, {table}, {}, &grads));
  Optimizer opt = o.optimizer == "sgd"       ? Optimizer::GradientDescent(0.01)
                  : o.optimizer == "adagrad" ? Optimizer::Adagrad(0.01)
                                             : Optimizer::Adam(0.01);
  opt.sparse_updates = sparse;
  opt.lazy_adam = sparse;
  TACT_ASSIGN_OR_RETURN(Output op, ApplyGradients(s, opt, {{grads[0], table}}, Output(), false));
  *train = op.node->name();
  InitAllVariables(s.WithOpName("init"));
  TACT_RETURN_IF_ERROR(s.status());
  TACT_ASSIGN_OR_RETURN(GraphDef def, s.ToGraphDef());
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Create());
  TACT_RETURN_IF_ERROR(session->Extend(def));
  TACT_RETURN_IF_ERROR(session->Run({}, {}, {"init"}).status());
  return session;
}

// Milliseconds per training step, as TimeSession.
StatusOr<std::vector<double>> TimeTraining(const Options& o, bool sparse, const Tensor& ids) {
  std::string train;
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, TrainSession(o, sparse, &train));
  const std::vector<std::pair<std::string, Tensor>> feeds = {{"ids:0", ids}};
  for (int i = 0; i < 2; ++i) TACT_RETURN_IF_ERROR(session->Run(feeds, {}, {train}).status());
  std::vector<double> ms;
  for (int r = 0; r < o.runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kRepsPerRun; ++i) {
      TACT_RETURN_IF_ERROR(session->Run(feeds, {}, {train}).status());
    }
    ms.push_back(Ms(start) / kRepsPerRun);
  }
  return ms;
}

// PyTorch's step, or null where the peer cannot run.
nlohmann::ordered_json TorchTraining(const Options& o) {
  const std::string cmd = o.python + " " + PeerScript("pytorch_embedding.py") + " --vocab " +
                          std::to_string(o.vocab) + " --dim " + std::to_string(o.dim) +
                          " --batch " + std::to_string(o.batch) + " --optimizer " + o.optimizer +
                          " --runs " + std::to_string(o.runs) + " --reps " +
                          std::to_string(kRepsPerRun) + " 2>/dev/null";
  const std::optional<std::string> out = CommandOutput(cmd);
  if (!out) return nullptr;
  const nlohmann::json j = nlohmann::json::parse(*out, nullptr, false);
  if (j.is_discarded() || !j.contains("train_ms")) return nullptr;
  return Spread(j["train_ms"].get<std::vector<double>>());
}

// The plain loop: the gradient's V * D floats zeroed, then each picked row
// of the upstream gradient (all ones here) added where it came from.
std::vector<double> TimeScatter(const Options& o, const Tensor& ids, int runs) {
  std::vector<float> grad(o.vocab * o.dim), upstream(o.batch * o.dim, 1.0f);
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kRepsPerRun; ++i) {
      std::memset(grad.data(), 0, grad.size() * sizeof(float));
      for (int64_t b = 0; b < o.batch; ++b) {
        float* row = grad.data() + ids.data<int32_t>()[b] * o.dim;
        const float* g = upstream.data() + b * o.dim;
        for (int64_t j = 0; j < o.dim; ++j) row[j] += g[j];
      }
    }
    ms.push_back(Ms(start) / kRepsPerRun);
  }
  return ms;
}

int Run(const Options& o) {
  Tensor table(DT_FLOAT, {o.vocab, o.dim});
  std::fill(table.data<float>(), table.data<float>() + table.NumElements(), 0.5f);
  const Tensor ids = Ids(o);
  const double want = static_cast<double>(o.batch * o.dim);
  nlohmann::ordered_json line = {{"vocab", o.vocab}, {"dim", o.dim}, {"batch", o.batch}};
  // The one-hot matrix is B x V floats: past 1 GiB it is left out.
  const bool with_one_hot = o.batch * o.vocab <= (int64_t{1} << 28);
  for (bool one_hot : {false, true}) {
    if (one_hot && !with_one_hot) continue;
    StatusOr<std::unique_ptr<Session>> session = GradientSession(o, one_hot);
    StatusOr<std::vector<double>> ms =
        session.ok() ? TimeSession(session->get(), table, ids, o.runs, want) : session.status();
    if (!ms.ok()) {
      std::fprintf(stderr, "tact bench embedding: %s\n", ms.status().ToString().c_str());
      return 1;
    }
    line[one_hot ? "one_hot_ms" : "grad_ms"] = Spread(*ms);
  }
  line["scatter_ms"] = Spread(TimeScatter(o, ids, o.runs));
  line["optimizer"] = o.optimizer;
  for (bool sparse : {true, false}) {
    StatusOr<std::vector<double>> ms = TimeTraining(o, sparse, ids);
    if (!ms.ok()) {
      std::fprintf(stderr, "tact bench embedding: %s\n", ms.status().ToString().c_str());
      return 1;
    }
    line[sparse ? "train_sparse_ms" : "train_dense_ms"] = Spread(*ms);
  }
  line["pytorch_train_ms"] = TorchTraining(o);
  const double grad = line["grad_ms"]["median"], scatter = line["scatter_ms"]["median"];
  const double one_hot = with_one_hot ? double(line["one_hot_ms"]["median"]) : 0.0;
  line["grad_vs_scatter"] = grad / scatter;
  if (!with_one_hot) line["one_hot_ms"] = nullptr;
  if (!o.json) {
    std::printf("embedding gradient, [%ld, %ld] table, %ld ids: %.3f ms, a plain loop %.3f ms, "
                "the one-hot product %.3f ms\n",
                static_cast<long>(o.vocab), static_cast<long>(o.dim), static_cast<long>(o.batch),
                grad, scatter, one_hot);
    std::printf("a training step (%s): %.3f ms sparse, %.3f ms dense\n", o.optimizer.c_str(),
                double(line["train_sparse_ms"]["median"]), double(line["train_dense_ms"]["median"]));
  }
  std::printf("%s\n", line.dump().c_str());
  return 0;
}

}  // namespace

void AddBenchEmbedding(CLI::App& bench, std::function<int()>& run) {
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = bench.add_subcommand(
      "embedding", "an embedding lookup's gradient and training step beside their peers");
  cmd->add_option("--vocab", opts->vocab, "the table's rows")->check(CLI::Range(1, 10000000));
  cmd->add_option("--dim", opts->dim, "the table's columns")->check(CLI::Range(1, 4096));
  cmd->add_option("--batch", opts->batch, "ids looked up per step")->check(CLI::Range(1, 1000000));
  cmd->add_option("--runs", opts->runs, "timed runs of 5 steps")->check(CLI::Range(1, 1000));
  cmd->add_option("--optimizer", opts->optimizer, "the training step's update")
      ->check(CLI::IsMember({"sgd", "adagrad", "adam"}));
  cmd->add_option("--python", opts->python, "the interpreter that runs the PyTorch peer");
  cmd->add_flag("--json", opts->json, "print only the JSON line");
  cmd->callback([opts, &run] { run = [opts] { return Run(*opts); }; });
}

}  // namespace tact::apps

// `tact bench serve --model {mlp,cnn} [--batch B] [--clients 1,4]
// [--requests N] [--runs R] [--threads T] [--json]`: serving a model as a
// C++ application would: the inference graph of `tact export`
// (apps/train/inference_graph.h) frozen with random weights, in one
// Session, and C client threads each calling Run with a batch of B raw
// images (feed pixels:0, fetch probabilities:0) until N requests are done.
// For each client count, per run: requests/s and the latency's median, 99th
// percentile and max; the JSON line gives each figure's min, median and
// max over the runs.
//
// The peer, for the mlp: the same network computed directly by the same
// number of client threads (cblas_sgemm, or cblas_sgemv for one image;
// bias, ReLU and softmax in plain loops; OpenBLAS on the calling thread),
// alternating with tact run by run: the floor of a request's compute on
// this machine, with the same competition for its cores. `p50_over_direct` and `p99_over_direct` are
// what the runtime adds. The direct probabilities are checked against
// tact's for the same batch before anything is timed.
#include <cblas.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <map>
#include <random>
#include <sstream>
#include <thread>

#include "actors/session.h"
#include "apps/bench/bench.h"
#include "apps/bench/spread.h"
#include "apps/train/inference_graph.h"
#include "graph/freeze_variables.h"
#include "graph/nn/models.h"

namespace tact::apps {
namespace {

struct ServeBenchFlags {
  std::string model = "mlp";
  int64_t batch = 1;
  std::string clients = "1,4";
  int64_t requests = 2000;
  int runs = 3;
  int threads = 0;  // 0: the Session's default
  bool json = true;
};

using Clock = std::chrono::steady_clock;
using Variables = std::vector<std::pair<std::string, Tensor>>;

// Random weights of each Variable's shape, small enough that nothing
// saturates or turns denormal.
StatusOr<Variables> RandomWeights(const GraphDef& graph) {
  TACT_ASSIGN_OR_RETURN(std::vector<std::string> names, VariablesNeeded(graph, {"probabilities:0"}));
  std::mt19937 rng(1);
  std::normal_distribution<float> normal(0.0f, 0.05f);
  Variables values;
  for (const std::string& name : names) {
    for (const NodeDef& n : graph.nodes) {
      if (n.name != name) continue;
      auto shape = n.attrs.find("shape");
      if (shape == n.attrs.end() || !shape->second.shape().IsFullyDefined()) {
        return errors::Internal("bench serve: variable '", name, "' has no fully defined shape");
      }
      TACT_ASSIGN_OR_RETURN(TensorShape dims, shape->second.shape().AsTensorShape());
      Tensor t(DT_FLOAT, dims);
      for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = normal(rng);
      values.emplace_back(name, std::move(t));
    }
  }
  return values;
}

// `batch` images of random pixels.
Tensor Pixels(int64_t batch, uint32_t seed) {
  Tensor t(DT_UINT8, TensorShape({batch, 28, 28}));
  std::mt19937 rng(seed);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<uint8_t>()[i] = static_cast<uint8_t>(rng());
  return t;
}

// The mlp (784-256-128-10, ReLU) on `pixels`, computed directly.
class DirectMlp {
 public:
  explicit DirectMlp(const Variables& weights) {
    for (const auto& [name, t] : weights) w_[name] = t;
  }
  std::vector<float> Probabilities(const Tensor& pixels) {
    const int64_t b = pixels.dim_size(0);
    x_.resize(b * 784);
    for (int64_t i = 0; i < b * 784; ++i) x_[i] = pixels.data<uint8_t>()[i] * (1.0f / 255.0f);
    Dense(x_, b, 784, "mlp/dense", 256, true, &h1_);
    Dense(h1_, b, 256, "mlp/dense_1", 128, true, &h2_);
    Dense(h2_, b, 128, "mlp/dense_2", 10, false, &out_);
    for (int64_t r = 0; r < b; ++r) {
      float* row = out_.data() + r * 10;
      const float top = *std::max_element(row, row + 10);
      float sum = 0;
      for (int k = 0; k < 10; ++k) sum += row[k] = std::exp(row[k] - top);
      for (int k = 0; k < 10; ++k) row[k] /= sum;
    }
    return out_;
  }

 private:
  void Dense(const std::vector<float>& in, int64_t b, int64_t n_in, const std::string& layer,
             int64_t n_out, bool relu, std::vector<float>* out) {
    out->resize(b * n_out);
    const float* kernel = w_[layer + "/kernel"].data<float>();
    // A single image is a vector: GEMV reads the weights once, where GEMM
    // would pack them first (what a careful direct caller writes).
    if (b == 1) {
      cblas_sgemv(CblasRowMajor, CblasTrans, n_in, n_out, 1.0f, kernel, n_out, in.data(), 1, 0.0f,
                  out->data(), 1);
    } else {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, b, n_out, n_in, 1.0f, in.data(), n_in,
                  kernel, n_out, 0.0f, out->data(), n_out);
    }
    const float* bias = w_[layer + "/bias"].data<float>();
    for (int64_t r = 0; r < b; ++r) {
      for (int64_t c = 0; c < n_out; ++c) {
        float& v = (*out)[r * n_out + c];
        v += bias[c];
        if (relu && v < 0) v = 0;
      }
    }
  }
  std::map<std::string, Tensor> w_;
  std::vector<float> x_, h1_, h2_, out_;
};

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const size_t i = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())));
  return v[i];
}

struct Phase {
  double requests_per_sec = 0;
  double p50_us = 0, p99_us = 0, max_us = 0;
};

// One client's requests: each call serves one; the client's own state
// (the direct computation's buffers) lives in the function.
using Client = std::function<Status()>;

// `clients` threads, each with its client from `make_client`, share
// `requests` requests; every latency is kept.
StatusOr<Phase> Serve(const std::function<Client()>& make_client, int clients, int64_t requests) {
  std::atomic<int64_t> next{0};
  std::vector<std::vector<double>> latencies(clients);
  std::vector<Status> failed(clients);
  std::vector<Client> made;
  for (int c = 0; c < clients; ++c) made.push_back(make_client());
  const Clock::time_point start = Clock::now();
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      while (next.fetch_add(1) < requests) {
        const Clock::time_point t0 = Clock::now();
        if (Status s = made[c](); !s.ok()) {
          failed[c] = s;
          return;
        }
        latencies[c].push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
      }
    });
  }
  for (std::thread& t : threads) t.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  for (const Status& s : failed) TACT_RETURN_IF_ERROR(s);
  std::vector<double> all;
  for (const auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  Phase p;
  p.requests_per_sec = static_cast<double>(all.size()) / seconds;
  p.p50_us = Percentile(all, 0.5);
  p.p99_us = Percentile(all, 0.99);
  p.max_us = *std::max_element(all.begin(), all.end());
  return p;
}

std::vector<double> Field(const std::vector<Phase>& phases, double Phase::*field) {
  std::vector<double> v;
  for (const Phase& p : phases) v.push_back(p.*field);
  return v;
}

nlohmann::ordered_json Figures(const std::vector<Phase>& phases, int64_t batch) {
  const std::vector<double> rps = Field(phases, &Phase::requests_per_sec);
  return {{"requests_per_sec", Spread(rps)},
          {"images_per_sec", Median(rps) * static_cast<double>(batch)},
          {"latency_p50_us", Spread(Field(phases, &Phase::p50_us))},
          {"latency_p99_us", Spread(Field(phases, &Phase::p99_us))},
          {"latency_max_us", Spread(Field(phases, &Phase::max_us))}};
}

StatusOr<std::vector<int>> ParseClients(const std::string& text) {
  std::vector<int> counts;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    char* end = nullptr;
    const long c = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || c < 1 || c > 256) {
      return errors::InvalidArgument("--clients: '", item, "' is not a count from 1 to 256");
    }
    counts.push_back(static_cast<int>(c));
  }
  if (counts.empty()) return errors::InvalidArgument("--clients: no client count given");
  return counts;
}

int Fail(const Status& s) {
  std::fprintf(stderr, "tact bench serve: %s\n", s.ToString().c_str());
  return 1;
}

int RunServeBench(const ServeBenchFlags& f) {
  if (f.batch < 1 || f.requests < 1 || f.runs < 1 || f.threads < 0) {
    return Fail(errors::InvalidArgument("--batch, --requests and --runs must be >= 1, --threads >= 0"));
  }
  StatusOr<std::vector<int>> clients = ParseClients(f.clients);
  if (!clients.ok()) return Fail(clients.status());
  StatusOr<GraphDef> graph = BuildInferenceGraph(f.model);
  if (!graph.ok()) return Fail(graph.status());
  StatusOr<Variables> weights = RandomWeights(*graph);
  if (!weights.ok()) return Fail(weights.status());
  StatusOr<GraphDef> frozen = FreezeVariables(*graph, {"probabilities:0"}, *weights);
  if (!frozen.ok()) return Fail(frozen.status());
  SessionOptions so;
  if (f.threads > 0) so.intra_op_threads = f.threads;
  StatusOr<std::unique_ptr<Session>> session = Session::Create(so);
  if (!session.ok()) return Fail(session.status());
  if (Status s = (*session)->Extend(*frozen); !s.ok()) return Fail(s);
  const Tensor pixels = Pixels(f.batch, 7);

  const bool direct = f.model == "mlp";
  if (direct) {
    StatusOr<std::vector<Tensor>> out = (*session)->Run({{"pixels:0", pixels}}, {"probabilities:0"}, {});
    if (!out.ok()) return Fail(out.status());
    const std::vector<float> want = DirectMlp(*weights).Probabilities(pixels);
    for (size_t i = 0; i < want.size(); ++i) {
      if (std::abs((*out)[0].data<float>()[i] - want[i]) > 1e-5f) {
        return Fail(errors::Internal("probability ", i, " is ", (*out)[0].data<float>()[i],
                                     " in tact and ", want[i], " computed directly"));
      }
    }
  }
  const std::function<Client()> tact_client = [&] {
    return [&]() { return (*session)->Run({{"pixels:0", pixels}}, {"probabilities:0"}, {}).status(); };
  };
  const std::function<Client()> direct_client = [&] {
    auto mlp = std::make_shared<DirectMlp>(*weights);
    return [mlp, &pixels]() {
      mlp->Probabilities(pixels);
      return Status::OK();
    };
  };
  nlohmann::ordered_json j = {{"model", f.model}, {"batch", f.batch}, {"requests", f.requests}};
  for (int c : *clients) {
    // Alternating, tact first, after a warm-up of each (every client's
    // first requests, and the kernels' learned costs).
    std::vector<Phase> phases[2];
    for (int side = 0; side < (direct ? 2 : 1); ++side) {
      StatusOr<Phase> w = Serve(side == 0 ? tact_client : direct_client, c, 50 * c);
      if (!w.ok()) return Fail(w.status());
    }
    for (int r = 0; r < f.runs; ++r) {
      for (int side = 0; side < (direct ? 2 : 1); ++side) {
        StatusOr<Phase> p = Serve(side == 0 ? tact_client : direct_client, c, f.requests);
        if (!p.ok()) return Fail(p.status());
        phases[side].push_back(*p);
      }
    }
    nlohmann::ordered_json section = Figures(phases[0], f.batch);
    if (direct) {
      section["direct"] = Figures(phases[1], f.batch);
      section["p50_over_direct"] = Median(Field(phases[0], &Phase::p50_us)) /
                                   Median(Field(phases[1], &Phase::p50_us));
      section["p99_over_direct"] = Median(Field(phases[0], &Phase::p99_us)) /
                                   Median(Field(phases[1], &Phase::p99_us));
    }
    j["clients_" + std::to_string(c)] = section;
  }
  std::printf("%s\n", j.dump().c_str());
  return 0;
}

}  // namespace

void AddBenchServe(CLI::App& bench, std::function<int()>& run) {
  auto f = std::make_shared<ServeBenchFlags>();
  CLI::App* cmd = bench.add_subcommand(
      "serve", "inference requests/s and latency from client threads on one Session, beside direct BLAS");
  cmd->add_option("--model", f->model, ModelNamesText())->check(CLI::IsMember(ModelNames()));
  cmd->add_option("--batch", f->batch, "images per request");
  cmd->add_option("--clients", f->clients, "client thread counts to measure, comma-separated");
  cmd->add_option("--requests", f->requests, "requests per run");
  cmd->add_option("--runs", f->runs, "timed runs per client count");
  cmd->add_option("--threads", f->threads, "compute threads of the device (0: the Session's default)");
  cmd->add_flag("--json", f->json, "the output is always one JSON line; accepted for symmetry");
  cmd->callback([f, &run] { run = [f] { return RunServeBench(*f); }; });
}

}  // namespace tact::apps

#include "apps/trainer.h"

#include <chrono>
#include <cstdio>
#include <cstring>

#include "actors/session.h"
#include "apps/idx.h"
#include "apps/train_graph.h"
#include "graph/gradients/gradients.h"
#include "graph/nn/layers.h"
#include "graph/nn/optimizers.h"
#include "graph/nn/variables.h"
#include "graph/ops/all_ops.h"

namespace tact::apps {
namespace {

// FNV-1a, 64 bits: small, and the same on every machine.
class Fingerprint {
 public:
  void Add(const void* data, size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < n; ++i) h_ = (h_ ^ p[i]) * 0x100000001b3ull;
  }
  void Add(const std::string& s) { Add(s.data(), s.size() + 1); }  // with its NUL: unambiguous
  void Add(int64_t v) { Add(&v, sizeof v); }
  std::string Hex() const {
    char buf[17];
    snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h_));
    return buf;
  }

 private:
  uint64_t h_ = 0xcbf29ce484222325ull;
};

StatusOr<std::string> VariablesFingerprint(Session& session, const TrainGraph& g) {
  std::vector<std::string> fetches;
  for (const auto& [info, value] : g.variables) fetches.push_back(value);
  TACT_ASSIGN_OR_RETURN(std::vector<Tensor> values, session.Run({}, fetches, {}));
  Fingerprint fp;
  for (size_t i = 0; i < values.size(); ++i) {
    const Tensor& t = values[i];
    fp.Add(g.variables[i].first.name);
    fp.Add(static_cast<int64_t>(t.dtype()));
    for (int d = 0; d < t.dims(); ++d) fp.Add(t.dim_size(d));
    fp.Add(t.raw_data(), t.TotalBytes());
  }
  return fp.Hex();
}

// The first `n` rows of `t` (a copy).
Tensor FirstRows(const Tensor& t, int64_t n) {
  TensorShape shape = t.shape();
  const size_t row_bytes = t.TotalBytes() / static_cast<size_t>(t.dim_size(0));
  shape.set_dim(0, n);
  Tensor out(t.dtype(), shape);
  std::memcpy(out.raw_data(), t.raw_data(), row_bytes * static_cast<size_t>(n));
  return out;
}

// The first `limit` examples (all if limit is 0 or too large).
Dataset Head(Dataset d, int64_t limit) {
  if (limit <= 0 || limit >= d.size()) return d;
  return Dataset{FirstRows(d.images, limit), FirstRows(d.labels, limit)};
}

StatusOr<double> TestAccuracy(Session& session, const TrainGraph& g, const Dataset& test) {
  Batcher batches(test, 1000, 0, /*shuffle=*/false, /*drop_remainder=*/false);
  int64_t correct = 0;
  for (int64_t i = 0; i < batches.batches_per_epoch(); ++i) {
    Batch b = batches.Get(0, i);
    TACT_ASSIGN_OR_RETURN(std::vector<Tensor> out,
                          session.Run({{g.images, b.images}, {g.labels, b.labels},
                                       {g.training, Tensor::Scalar<bool>(false)}},
                                      {g.correct}, {}));
    correct += out[0].scalar<int32_t>();
  }
  return static_cast<double>(correct) / static_cast<double>(test.size());
}

}  // namespace

StatusOr<TrainResult> Train(const TrainOptions& opt) {
  if (opt.epochs < 1) return errors::InvalidArgument("epochs must be at least 1, got ", opt.epochs);
  if (opt.batch < 1) return errors::InvalidArgument("batch must be at least 1, got ", opt.batch);
  TACT_ASSIGN_OR_RETURN(Dataset train, LoadFashionMnist(opt.data_dir, "train"));
  TACT_ASSIGN_OR_RETURN(Dataset test, LoadFashionMnist(opt.data_dir, "t10k"));
  train = Head(std::move(train), opt.train_limit);
  test = Head(std::move(test), opt.test_limit);
  if (train.size() < opt.batch) {
    return errors::InvalidArgument("batch ", opt.batch, " is larger than the ", train.size(),
                                   " training images");
  }
  TACT_ASSIGN_OR_RETURN(TrainGraph g, BuildTrainGraph(opt));

  SessionOptions so;
  so.intra_op_threads = opt.intra_op_threads;
  so.device_count = {{"CPU", opt.devices}};
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Create(so));
  TACT_RETURN_IF_ERROR(session->Extend(g.def));
  TACT_RETURN_IF_ERROR(session->Run({}, {}, {g.init_op}).status());

  Batcher batches(train, opt.batch, opt.seed);
  const int64_t per_epoch = batches.batches_per_epoch();
  int64_t total = per_epoch * opt.epochs;
  if (opt.max_steps > 0 && opt.max_steps < total) total = opt.max_steps;
  const int epochs = static_cast<int>((total + per_epoch - 1) / per_epoch);

  TrainResult r;
  r.parameters = g.parameters;
  const Tensor training_on = Tensor::Scalar<bool>(true);
  double train_seconds = 0;
  for (int epoch = 0; epoch < epochs; ++epoch) {
    double loss_sum = 0;
    int64_t epoch_steps = 0;
    for (int64_t i = 0; i < per_epoch && r.steps < total; ++i) {
      Batch b = batches.Get(epoch, i);
      const auto start = std::chrono::steady_clock::now();
      TACT_ASSIGN_OR_RETURN(std::vector<Tensor> out,
                            session->Run({{g.images, b.images}, {g.labels, b.labels},
                                          {g.training, training_on}},
                                         {g.loss}, {g.train_op}));
      train_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const double loss = out[0].scalar<float>();
      loss_sum += loss;
      ++epoch_steps;
      ++r.steps;
      if (opt.on_step) {
        opt.on_step(TrainProgress{r.steps, total, opt.batch, epoch, loss,
                                  static_cast<double>(r.steps * opt.batch) / train_seconds});
      }
    }
    r.train_loss = loss_sum / static_cast<double>(epoch_steps);
    TACT_ASSIGN_OR_RETURN(r.test_accuracy, TestAccuracy(*session, g, test));
    if (opt.on_epoch) opt.on_epoch(epoch, r.test_accuracy);
  }
  r.images_per_sec = static_cast<double>(r.steps * opt.batch) / train_seconds;
  TACT_ASSIGN_OR_RETURN(r.variables_fingerprint, VariablesFingerprint(*session, g));
  TACT_RETURN_IF_ERROR(session->Close());
  return r;
}

}  // namespace tact::apps

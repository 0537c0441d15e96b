#include "apps/train/train_summaries.h"

#include <cstdio>
#include <vector>

#include "graph/ops/summary_ops.h"
#include "kernels/summary_proto.h"

namespace tact::apps {
namespace {

// A HistogramSummary of each trainable variable's value, on the device
// that reads it, merged into "summaries/variables"; returns its "name:0".
StatusOr<std::string> AddHistograms(ReplicatedTrainGraph* g) {
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> built, Graph::FromGraphDef(g->def));
  std::shared_ptr<Graph> graph(std::move(built));
  Scope root = Scope::FromGraph(graph).NewSubScope("summaries");
  std::vector<Input> histograms;
  for (const auto& [info, value] : g->variables) {
    if (!info.trainable) continue;
    TACT_ASSIGN_OR_RETURN(InputRef ref, ParseInputRef(value));
    Node* read = graph->FindNode(ref.node);
    if (read == nullptr) {
      return errors::Internal("variable '", info.name, "' is read by no node '", value, "'");
    }
    Scope on = root.WithDevice(read->requested_device());
    histograms.push_back(
        HistogramSummary(on, Tensor::Scalar<std::string>(info.name), Output(read, ref.port)));
  }
  Output merged = MergeSummary(root.WithOpName("variables"), histograms);
  TACT_ASSIGN_OR_RETURN(g->def, root.ToGraphDef());  // the scope's first error, if any
  return merged.node->name() + ":0";
}

}  // namespace

StatusOr<std::unique_ptr<TrainSummaries>> TrainSummaries::Create(const std::string& dir,
                                                                 int64_t every_steps, int64_t total_steps,
                                                                 ReplicatedTrainGraph* graph) {
  if (every_steps < 1) {
    return errors::InvalidArgument("--summary-every-steps must be at least 1, got ", every_steps);
  }
  TACT_ASSIGN_OR_RETURN(std::string histograms, AddHistograms(graph));
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<EventsWriter> writer, EventsWriter::Create(dir));
  return std::unique_ptr<TrainSummaries>(
      new TrainSummaries(std::move(writer), every_steps, total_steps, std::move(histograms)));
}

bool TrainSummaries::Due(int64_t steps_done) const {
  return steps_done % every_steps_ == 0 || steps_done == total_steps_;
}

Status TrainSummaries::RunHistograms(Session& session) {
  TACT_ASSIGN_OR_RETURN(std::vector<Tensor> out, session.Run({}, {histograms_}, {}));
  last_histograms_ = out[0].scalar<std::string>();
  return Status::OK();
}

void TrainSummaries::WriteStep(const TrainProgress& p) {
  Write(p.step, summary::Scalar("loss", static_cast<float>(p.loss)) +
                    summary::Scalar("images_per_sec", static_cast<float>(p.images_per_sec)) +
                    last_histograms_);
  last_histograms_.clear();
}

void TrainSummaries::WriteTestAccuracy(int64_t steps_done, double accuracy) {
  Write(steps_done, summary::Scalar("test_accuracy", static_cast<float>(accuracy)));
}

void TrainSummaries::Write(int64_t step, const std::string& summary) {
  Status s = writer_->WriteSummary(step, summary);
  if (!s.ok() && !write_failed_) {
    write_failed_ = true;
    std::fprintf(stderr, "tact train: --summary-dir: %s; the run goes on without summaries\n",
                 s.ToString().c_str());
  }
}

}  // namespace tact::apps

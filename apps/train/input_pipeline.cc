#include "apps/train/input_pipeline.h"

#include "graph/ops/all_ops.h"

namespace tact::apps {
namespace {

const NodeDef* FindNode(const GraphDef& def, const std::string& name) {
  for (const NodeDef& n : def.nodes) {
    if (n.name == name) return &n;
  }
  return nullptr;
}

// "name:0" -> "name".
std::string NodeOf(const std::string& tensor) { return tensor.substr(0, tensor.find(':')); }

// Placeholder `name` of `def` becomes an Identity of `input`.
Status Rewire(GraphDef* def, const std::string& name, const std::string& input, DataType dtype) {
  for (NodeDef& n : def->nodes) {
    if (n.name != name) continue;
    if (n.op != "Placeholder") return errors::Internal("node '", name, "' is not a Placeholder");
    n.op = "Identity";
    n.inputs = {input};
    n.attrs = {{"T", AttrValue::Type(dtype)}};
    return Status::OK();
  }
  return errors::Internal("the training graph has no node '", name, "'");
}

}  // namespace

StatusOr<InputPipeline> AddInputPipeline(const TrainOptions& opt, int64_t share, ReplicatedTrainGraph* g) {
  Scope root = Scope::NewRootScope();
  InputPipeline p;
  std::vector<std::pair<std::string, std::string>> outputs;  // per tower: images, labels
  const std::string images = opt.data.dir + "/train-images-idx3-ubyte.gz";
  const std::string labels = opt.data.dir + "/train-labels-idx1-ubyte.gz";
  for (size_t k = 0; k < g->towers.size(); ++k) {
    const NodeDef* placeholder = FindNode(g->def, NodeOf(g->towers[k].images));
    if (placeholder == nullptr) return errors::Internal("tower ", k, " has no images placeholder");
    Scope s = root.NewSubScope("input_pipeline_" + std::to_string(k)).WithDevice(placeholder->device);
    auto image_files = FIFOQueue(s.WithOpName("image_files"), {DT_STRING});
    auto label_files = FIFOQueue(s.WithOpName("label_files"), {DT_STRING});
    const std::vector<std::string> image_epochs(static_cast<size_t>(opt.data.epochs), images);
    const std::vector<std::string> label_epochs(static_cast<size_t>(opt.data.epochs), labels);
    Node* fill_images =
        QueueEnqueueMany(s, image_files, {Const(s, Tensor::FromVector<std::string>(image_epochs))});
    Node* fill_labels =
        QueueEnqueueMany(s, label_files, {Const(s, Tensor::FromVector<std::string>(label_epochs))});
    const Scope after_fill = s.WithControlDependencies({Output(fill_images), Output(fill_labels)});
    QueueClose(after_fill, image_files);
    Node* fill = QueueClose(after_fill.WithOpName("fill"), label_files);

    constexpr int64_t kRecordsPerRead = 500;
    auto pixels = ReaderReadUpTo(s, FixedLengthRecordReader(s.WithOpName("image_reader"), 28 * 28, 16),
                                 image_files, kRecordsPerRead);
    auto label_bytes = ReaderReadUpTo(s, FixedLengthRecordReader(s.WithOpName("label_reader"), 1, 8),
                                      label_files, kRecordsPerRead);
    // pixel * (1/255), as the feed path's IDX loader scales them.
    auto x = Reshape(s, Mul(s, Cast(s, DecodeRaw(s, pixels.values, DT_UINT8), DT_FLOAT), 1.0f / 255.0f),
                     {-1, 28, 28, 1});
    auto y = Cast(s, Reshape(s, DecodeRaw(s, label_bytes.values, DT_UINT8), {-1}), DT_INT32);
    // As many examples behind each dequeue as make a well-mixed batch, and
    // room for a few reads ahead.
    const int64_t seed = static_cast<int64_t>(opt.model.seed) * 1000003 + static_cast<int64_t>(k) + 1;
    auto examples = RandomShuffleQueue(s.WithOpName("examples"), {DT_FLOAT, DT_INT32}, 10000, seed,
                                       {PartialTensorShape({28, 28, 1}), PartialTensorShape({})}, 20000);
    Node* enqueue = QueueEnqueueMany(s.WithOpName("enqueue"), examples, {x, y});
    Node* close = QueueClose(s.WithOpName("close"), examples, /*cancel_pending_enqueues=*/true);
    std::vector<Output> batch =
        QueueDequeueMany(s.WithOpName("batch"), examples, static_cast<int32_t>(share), {DT_FLOAT, DT_INT32});
    TACT_RETURN_IF_ERROR(root.status());
    p.towers.push_back({fill->name(), enqueue->name(), close->name()});
    outputs.emplace_back(batch[0].name(), batch[1].name());
  }
  TACT_ASSIGN_OR_RETURN(GraphDef added, root.ToGraphDef());
  for (NodeDef& n : added.nodes) g->def.nodes.push_back(std::move(n));
  for (size_t k = 0; k < g->towers.size(); ++k) {
    TACT_RETURN_IF_ERROR(Rewire(&g->def, NodeOf(g->towers[k].images), outputs[k].first, DT_FLOAT));
    TACT_RETURN_IF_ERROR(Rewire(&g->def, NodeOf(g->towers[k].labels), outputs[k].second, DT_INT32));
  }
  return p;
}

StatusOr<std::vector<std::unique_ptr<QueueRunner>>> StartInputPipeline(Session& session,
                                                                        const InputPipeline& p) {
  std::vector<std::unique_ptr<QueueRunner>> runners;
  for (const InputPipeline::Tower& t : p.towers) {
    TACT_RETURN_IF_ERROR(session.Run({}, {}, {t.fill}).status());
    // Refilled after a lost worker: the one that comes back reads afresh.
    runners.push_back(
        std::make_unique<QueueRunner>(&session, std::vector<std::string>{t.enqueue}, t.close, t.fill));
    runners.back()->Start(1);  // one thread: images and labels stay paired
  }
  return runners;
}

Status WithPipelineCause(const Status& step, const std::vector<std::unique_ptr<QueueRunner>>& runners) {
  if (step.ok()) return step;
  for (const auto& runner : runners) {
    const Status cause = runner->status();
    if (!cause.ok()) {
      return Status(cause.code(), "input pipeline: " + cause.message() + " (the training step then failed: " +
                                      step.ToString() + ")");
    }
  }
  return step;
}

}  // namespace tact::apps

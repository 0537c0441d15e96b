#include "apps/train/inference_graph.h"

#include "graph/nn/models.h"
#include "graph/ops/all_ops.h"

namespace tact::apps {

StatusOr<GraphDef> BuildInferenceGraph(const std::string& model) {
  Scope s = Scope::NewRootScope();
  Output pixels = Placeholder(s.WithOpName("pixels"), DT_UINT8, PartialTensorShape({-1, 28, 28}));
  Output shape = Const(s, Tensor::FromVector<int32_t>({-1, 28, 28, 1}));
  // As the trainer's batches (apps/train/data/idx.h): pixel * (1 / 255),
  // the same float to the bit.
  Output images = Mul(s.WithOpName("images"), Cast(s, Reshape(s, pixels, shape), DT_FLOAT),
                      Const(s, Tensor::Scalar<float>(1.0f / 255.0f)));
  // Dropout off; the step only keys its masks.
  Output training = Const(s.WithOpName("training"), Tensor::Scalar<bool>(false));
  Output step = Const(s.WithOpName("step"), Tensor::Scalar<int64_t>(0));
  // The seed draws initial values, which the checkpoint's replace.
  Output logits = BuildModel(s.NewSubScope(model), model, images, training, /*seed=*/0, step);
  TACT_RETURN_IF_ERROR(s.status());
  logits = Identity(s.WithOpName("logits"), logits);
  Softmax(s.WithOpName("probabilities"), logits);
  ArgMax(s.WithOpName("classes"), logits, Const(s, Tensor::Scalar<int32_t>(1)), DT_INT32);
  return s.ToGraphDef();
}

}  // namespace tact::apps

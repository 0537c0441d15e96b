#include "graph/nn/models.h"

#include "graph/nn/layers.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {

Output ReluActivation(const Scope& s, Input x) { return Relu(s, x); }

Output Mlp(const Scope& s, Output images, int64_t seed) {
  Output x = Flatten(s, images);
  x = Dense(s, x, 256, ReluActivation, seed);
  x = Dense(s, x, 128, ReluActivation, seed + 1);
  return Dense(s, x, 10, nullptr, seed + 2);
}

Output Cnn(const Scope& s, Output images, Output training, int64_t seed, Output step) {
  Output x = Conv2DLayer(s, images, 32, {5, 5}, {1, 1}, "SAME", ReluActivation, seed);
  x = MaxPool2DLayer(s, x, {2, 2}, {2, 2}, "VALID");
  x = Conv2DLayer(s, x, 64, {5, 5}, {1, 1}, "SAME", ReluActivation, seed + 1);
  x = MaxPool2DLayer(s, x, {2, 2}, {2, 2}, "VALID");
  x = Dense(s, Flatten(s, x), 1024, ReluActivation, seed + 2);
  x = Dropout(s, x, 0.4, training, seed + 3, step);
  return Dense(s, x, 10, nullptr, seed + 4);
}

// The cnn with batch normalization after each convolution and the dense
// layer, before its ReLU, as Keras models place it. The convolutions keep
// their bias, so that the layers are the cnn's; beta makes it redundant.
Output CnnBn(const Scope& s, Output images, Output training, int64_t seed, Output step) {
  Output x = Conv2DLayer(s, images, 32, {5, 5}, {1, 1}, "SAME", nullptr, seed);
  x = MaxPool2DLayer(s, Relu(s, BatchNormalization(s, x, training)), {2, 2}, {2, 2}, "VALID");
  x = Conv2DLayer(s, x, 64, {5, 5}, {1, 1}, "SAME", nullptr, seed + 1);
  x = MaxPool2DLayer(s, Relu(s, BatchNormalization(s, x, training)), {2, 2}, {2, 2}, "VALID");
  x = Dense(s, Flatten(s, x), 1024, nullptr, seed + 2);
  x = Dropout(s, Relu(s, BatchNormalization(s, x, training)), 0.4, training, seed + 3, step);
  return Dense(s, x, 10, nullptr, seed + 4);
}

}  // namespace

const std::vector<std::string>& ModelNames() {
  static const std::vector<std::string> names = {"mlp", "cnn", "cnn_bn"};
  return names;
}

Output BuildModel(const Scope& scope, const std::string& model, Output images, Output training,
                  int64_t seed, Output step) {
  if (model == "mlp") return Mlp(scope, images, seed);
  if (model == "cnn") return Cnn(scope, images, training, seed, step);
  if (model == "cnn_bn") return CnnBn(scope, images, training, seed, step);
  scope.UpdateStatus(
      errors::InvalidArgument("unknown model '", model, "': expected mlp, cnn or cnn_bn"));
  return Output();
}

}  // namespace tact

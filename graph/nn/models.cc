#include "graph/nn/models.h"

#include "graph/nn/attention.h"
#include "graph/nn/initializers.h"
#include "graph/nn/layers.h"
#include "graph/nn/variables.h"
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

// Dense applied to every token of x [B, T, C]: [B, T, units].
Output TokenDense(const Scope& s, Output x, int64_t tokens, int64_t channels, int64_t units,
                  const Activation& activation, int64_t seed) {
  Output flat = Reshape(s, x, Tensor::FromVector<int32_t>({-1, static_cast<int32_t>(channels)}));
  Output y = Dense(s, flat, units, activation, seed);
  return Reshape(s, y, Tensor::FromVector<int32_t>({-1, static_cast<int32_t>(tokens),
                                                    static_cast<int32_t>(units)}));
}

// A small vision transformer over the image's rows: each of the 28 rows is
// a token of 28 pixels, projected to kWidth with a learned position
// embedding added; two pre-norm encoder blocks (x + attention(LN(x)), then
// x + feed-forward(LN(x))); a final LayerNormalization, the mean over the
// tokens, a dense 10.
Output Transformer(const Scope& s, Output images, int64_t seed) {
  constexpr int64_t kTokens = 28, kWidth = 64, kHeads = 4, kHidden = 128, kBlocks = 2;
  Output rows = Reshape(s, images, Tensor::FromVector<int32_t>({-1, kTokens, kTokens}));
  Output x = TokenDense(s, rows, kTokens, kTokens, kWidth, nullptr, seed);
  Output position = VariableWithInit(s, "position_embedding", TensorShape({kTokens, kWidth}),
                                     RandomNormalInit(0, 0.02, seed + 1));
  x = Add(s, x, position);
  for (int64_t b = 0; b < kBlocks; ++b) {
    const int64_t block_seed = seed + 10 * (b + 1);
    Output normed = LayerNormalization(s, x);
    x = Add(s, x, MultiHeadAttention(s, normed, normed, kHeads, kWidth / kHeads, false, block_seed));
    Output hidden =
        TokenDense(s, LayerNormalization(s, x), kTokens, kWidth, kHidden, ReluActivation,
                   block_seed + 5);
    x = Add(s, x, TokenDense(s, hidden, kTokens, kHidden, kWidth, nullptr, block_seed + 6));
  }
  Output pooled = Mean(s, LayerNormalization(s, x), 1);
  return Dense(s, pooled, 10, nullptr, seed + 2);
}

}  // namespace

const std::vector<std::string>& ModelNames() {
  static const std::vector<std::string> names = {"mlp", "cnn", "cnn_bn", "transformer"};
  return names;
}

std::string ModelNamesText() {
  const std::vector<std::string>& names = ModelNames();
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? " or " : ", ";
    text += names[i];
  }
  return text;
}

Output BuildModel(const Scope& scope, const std::string& model, Output images, Output training,
                  int64_t seed, Output step) {
  if (model == "mlp") return Mlp(scope, images, seed);
  if (model == "cnn") return Cnn(scope, images, training, seed, step);
  if (model == "cnn_bn") return CnnBn(scope, images, training, seed, step);
  if (model == "transformer") return Transformer(scope, images, seed);
  scope.UpdateStatus(
      errors::InvalidArgument("unknown model '", model, "': expected ", ModelNamesText()));
  return Output();
}

}  // namespace tact

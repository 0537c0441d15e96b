// The networks `tact train` trains (apps/train), built with the layers of this folder.
//
//   mlp: 784-256-128-10 with ReLU.
//   cnn: the TensorFlow layers tutorial's network: conv 5x5x32 SAME + ReLU,
//        max-pool 2x2, conv 5x5x64 SAME + ReLU, max-pool 2x2, dense 1024 +
//        ReLU, dropout 0.4, dense 10.
//   cnn_bn: the cnn with BatchNormalization (momentum 0.99) before each
//        ReLU; its running averages are variables that training moves and
//        checkpoints keep.
//   transformer: each image's 28 rows as 28 tokens, projected to 64 with a
//        learned position embedding, two pre-norm encoder blocks (4-head
//        self-attention and a 128-unit ReLU feed-forward, each residual),
//        LayerNormalization, the mean over the tokens, dense 10.
#pragma once

#include <string>
#include <vector>

#include "graph/scope.h"

namespace tact {

// The names BuildModel knows, for the commands' --model flags.
const std::vector<std::string>& ModelNames();
// "mlp, cnn, cnn_bn or transformer": the names for help texts and errors.
std::string ModelNamesText();

// images: float [B, 28, 28, 1]; training: a bool scalar (dropout is on only
// when it is true); step: the int64 global step, which with `seed` decides
// dropout's masks. Returns the logits [B, 10]; an unknown model name is an
// InvalidArgument recorded in the scope.
Output BuildModel(const Scope& scope, const std::string& model, Output images, Output training,
                  int64_t seed, Output step);

}  // namespace tact

// The inference graph of a model `tact train` trains (graph/nn/models.h),
// for `tact export`: the same network under the same names, so that a
// checkpoint of any training run of the model (one process or a cluster,
// any optimizer) holds its variables, with dropout off and a step's
// preprocessing in the graph. Its inputs and outputs:
//
//   pixels:0         uint8 [N, 28, 28]      raw pixels, as the IDX files hold them
//   images:0         float [N, 28, 28, 1]   pixels / 255 (feed it instead of pixels)
//   logits:0         float [N, 10]
//   probabilities:0  float [N, 10]          softmax of the logits
//   classes:0        int32 [N]              the most probable class
#pragma once

#include <string>

#include "graph/graph_def.h"

namespace tact::apps {

inline constexpr const char* kInferenceOutputs[] = {"logits:0", "probabilities:0", "classes:0"};

// With the model's Variables (checkpoint/freeze_checkpoint.h freezes them).
// InvalidArgument for a model name that BuildModel does not know.
StatusOr<GraphDef> BuildInferenceGraph(const std::string& model);

}  // namespace tact::apps

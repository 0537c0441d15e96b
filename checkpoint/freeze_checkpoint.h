// A graph frozen for inference from a checkpoint (TensorFlow's
// freeze_graph with its input checkpoint): the Variables the outputs need
// are read from the checkpoint and become Consts (graph/freeze_variables.h).
//
//   StatusOr<FrozenGraph> f = FreezeFromCheckpoint(training_graph, {"probabilities:0"}, "ck");
//   // f->graph runs in any Session, without the checkpoint.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph_def.h"

namespace tact {

struct FrozenGraph {
  GraphDef graph;
  int64_t step = 0;        // the checkpoint's
  int64_t variables = 0;   // frozen
  int64_t parameters = 0;  // their elements
};

// From the checkpoint of `step` in `dir`, or with step -1 the newest one
// that reads back good (damaged newer ones skipped, as a restore does).
// Only the Variables the outputs need are read; the checkpoint may hold
// others (an optimizer's slots, the global step). Errors name the
// directory and step: NotFound for no checkpoint (or none good), and an
// InvalidArgument naming a Variable the checkpoint lacks, besides
// FreezeVariables's.
StatusOr<FrozenGraph> FreezeFromCheckpoint(const GraphDef& graph, const std::vector<std::string>& outputs,
                                           const std::string& dir, int64_t step = -1);

}  // namespace tact

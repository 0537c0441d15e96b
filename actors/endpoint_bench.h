// An in-process Send/Recv pair through its endpoint actors beside the same
// pair through the step's rendezvous table (what a Send and a Recv between
// two devices used before they were actors), for `tact bench sendrecv`.
#pragma once

#include <vector>

#include "graph/status.h"

namespace tact {

// Per Send and Recv of one step, one value per run.
struct SendRecvPairTimes {
  std::vector<double> endpoint_ns;  // through their actors
  std::vector<double> table_ns;     // through the step's table
};

// Runs `steps` steps of each (after a warm-up), alternating 10 runs of
// `steps / 10` so that machine noise hits both alike.
StatusOr<SendRecvPairTimes> TimeSendRecvPairs(int steps);

}  // namespace tact

// An in-process Send/Recv pair through its endpoint actors beside the same
// pair through the step's rendezvous table (what a Send and a Recv between
// two devices used before they were actors), for `tact bench sendrecv`.
#pragma once

#include "graph/status.h"

namespace tact {

struct SendRecvPairTimes {
  double endpoint_ns = 0;  // per Send and Recv of one step, through their actors
  double table_ns = 0;     // the same through the step's table
};

// Runs `steps` steps of each (after a warm-up), alternating runs of
// `steps / 10` so that machine noise hits both alike; medians per pair.
StatusOr<SendRecvPairTimes> TimeSendRecvPairs(int steps);

}  // namespace tact

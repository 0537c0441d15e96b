// A step's node timeline (RunMetadata's StepStats) as a Chrome trace: the
// JSON that chrome://tracing and ui.perfetto.dev open, as TensorFlow's
// timeline module writes it (paper 9.2, performance tracing). One process
// per task, one thread per device (more where a device ran nodes at
// once), one slice per node: named by the node, its op as the category,
// its output bytes as arguments. Times are the nodes' own (the system
// clock, actors/step_stats.h), shown from the step's first node (whose
// start is otherData.first_node_start_unix_ns), so the tasks of a cluster
// share one time line as far as their clocks agree.
//
//   RunMetadata meta;
//   session->Run(feeds, fetches, targets, &meta);
//   TACT_RETURN_IF_ERROR(WriteChromeTrace("step.json", meta.step_stats, graph_def));
#pragma once

#include <string>

#include "actors/session.h"
#include "graph/graph_def.h"

namespace tact::apps {

// The trace as JSON text. `graph` gives each node's op; a node it lacks
// (a _Send or _Recv the partitioner added) is named by its kind.
std::string ChromeTraceJson(const StepStats& stats, const GraphDef& graph);

// Writes it to `path`; the error names the file.
Status WriteChromeTrace(const std::string& path, const StepStats& stats, const GraphDef& graph);

}  // namespace tact::apps

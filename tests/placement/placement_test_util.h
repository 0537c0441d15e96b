// Shared by the placement tests: device names, graphs, and the obvious
// placements the greedy one is compared with.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/scope.h"
#include "placement/cost_model.h"

namespace tact::placement_test {

// "/job:<job>/replica:0/task:<task>/device:<type>:<id>"
std::string Dev(int task, const std::string& type, int id, const std::string& job = "worker");
// n CPUs of /job:localhost task 0.
std::vector<std::string> LocalCpus(int n);

// A training graph: the apps' model ("mlp" or "cnn") with its loss,
// AddSymbolicGradients and Adam, as `tact train` builds it. Batch 32.
Status BuildTrainingGraph(const Scope& s, const std::string& model);

// `width` independent chains of `depth` MatMuls of [64, n] x [n, n], summed
// at the end. Node "layer<i>/chain<j>/..." for layer i of chain j.
void BuildWideGraph(const Scope& s, int width, int depth, int64_t n);

// Assigns device (layer index % devices) to each node, where a node's layer
// is the forward layer its name belongs to: its first two name components
// after any "gradients/" or optimizer prefix ("mlp/dense_1", "layer3/..."),
// numbered in topological order of first appearance.
void AssignRoundRobinByLayer(Graph* g, const std::vector<std::string>& devices);
void AssignAll(Graph* g, const std::string& device);
// The assignment's SimulatedMakespan (aborting the test on error).
double Makespan(const Graph& g, const CostModel& cost);

}  // namespace tact::placement_test

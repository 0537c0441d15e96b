// Which Consts the partitioner copies to the devices that read them rather
// than sending them each step (partitioner.h), asked by the placer's
// simulation too, so that the plan it costs is the one that runs.
#pragma once

#include <cstdint>

#include "graph/graph.h"

namespace tact {

// The default most bytes of a copied Const (PartitionOptions and
// PlacerOptions::duplicate_const_max_bytes).
inline constexpr int64_t kDuplicateConstMaxBytes = 1024;

// Whether `node` is a Const without inputs whose value holds at most
// `max_bytes`: its one output is copied to each other device of the same
// type that reads it.
bool CopiedToReaders(const Node& node, int64_t max_bytes);

}  // namespace tact

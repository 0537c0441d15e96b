// Builder functions for Variables (paper 2): a Variable node yields a
// reference to a persistent mutable tensor that lives across Runs; Assign,
// AssignAdd and AssignSub update it in place. (The kernels and containers
// come with the runtime.)
#pragma once

#include "graph/op_builder.h"

namespace tact {

// A variable of this shape and dtype, in `container` (empty: the default
// one), shared by every node that names the same `shared_name` there (empty:
// the node's own name).
Output Variable(const Scope& scope, const PartialTensorShape& shape, DataType dtype = DT_FLOAT,
                const std::string& container = "", const std::string& shared_name = "");
Output Assign(const Scope& scope, Input ref, Input value, bool validate_shape = true,
              bool use_locking = true);
Output AssignAdd(const Scope& scope, Input ref, Input value, bool use_locking = false);
Output AssignSub(const Scope& scope, Input ref, Input value, bool use_locking = false);
// Row updates, TensorFlow's: for each position p of indices,
//   ScatterAdd:    ref[indices[p], ...] += updates[p, ...]
//   ScatterSub:    ref[indices[p], ...] -= updates[p, ...]
//   ScatterUpdate: ref[indices[p], ...]  = updates[p, ...]
// updates has shape indices.shape + ref.shape[1:]. A row picked several
// times gets every update (added or subtracted in the order of positions;
// ScatterUpdate keeps the last). An index outside [0, ref.shape[0]) fails
// the step naming its position and value, before any row changes. The
// rest of ref is untouched: the cost grows with the rows picked, not with
// the variable (the sparse updates of an embedding, graph/nn/optimizers.h).
Output ScatterAdd(const Scope& scope, Input ref, Input indices, Input updates,
                  bool use_locking = false);
Output ScatterSub(const Scope& scope, Input ref, Input indices, Input updates,
                  bool use_locking = false);
Output ScatterUpdate(const Scope& scope, Input ref, Input indices, Input updates,
                     bool use_locking = false);
Output IsVariableInitialized(const Scope& scope, Input ref);
// Drops every resource (variables, queues, readers) of `container` in the
// process whose device runs it, as TensorFlow's Session::Reset does for a
// worker's containers, and yields how many it dropped. A node still
// holding one keeps it until it lets go; a later lookup makes a fresh one.
// The container must be named: the tasks' default one is not for a run to
// clear.
Output ResetContainer(const Scope& scope, const std::string& container);

}  // namespace tact

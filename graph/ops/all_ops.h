// Every builder function of every op: include this to build graphs.
#pragma once

#include "graph/ops/array_ops.h"
#include "graph/ops/cond.h"
#include "graph/ops/control_flow_ops.h"
#include "graph/ops/core_ops.h"
#include "graph/ops/data_flow_ops.h"
#include "graph/ops/fill_ops.h"
#include "graph/ops/io_ops.h"
#include "graph/ops/math_ops.h"
#include "graph/ops/matmul_ops.h"
#include "graph/ops/nn_ops.h"
#include "graph/ops/random_ops.h"
#include "graph/ops/reduction_ops.h"
#include "graph/ops/state_ops.h"
#include "graph/ops/tensor_array_ops.h"
#include "graph/ops/training_ops.h"
#include "graph/ops/while_loop.h"

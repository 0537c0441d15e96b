// Builder functions for random tensors: RandomUniform, RandomStandardNormal
// and TruncatedNormal, and their Stateless variants (TensorFlow's names,
// inputs and attrs).
//
//   auto w = TruncatedNormal(s, {784, 100}, DT_FLOAT, /*seed=*/1);
//
// Determinism (DESIGN.md: deterministic by default). Every value is a pure
// function of (seed, seed2, the step id, its element index), computed with
// the counter-based Philox4x32-10 generator, so a graph gives the same
// numbers on every run and for every thread count. Unlike TensorFlow,
// seed = seed2 = 0 does NOT mean "nondeterministic": the kernel then takes
// its seed from a hash of the node's name, so distinct unseeded nodes draw
// distinct numbers and every run reproduces them. Each step draws fresh
// numbers (the step id is part of the counter); two runs of one node within
// a single step (a loop body) draw the same numbers.
//
// The Stateless variants (TensorFlow's too) take the seed as an input, an
// int32 or int64 vector of two, and no step: each value is a pure function
// of (seed, element index). A training graph passes its global step as the
// seed's second element, so a run restored from a checkpoint draws again
// the numbers it drew before (graph/nn/layers.h: Dropout).
//
// Floats come from the top 23 bits of a 32-bit draw (doubles from 52 bits)
// and lie in [0, 1); normals use the Box-Muller transform; TruncatedNormal
// re-draws values of magnitude 2 or more.
#pragma once

#include "graph/op_builder.h"

namespace tact {

// `shape` is an int32 or int64 vector; `dtype` is float or double.
Output RandomUniform(const Scope& scope, Input shape, DataType dtype = DT_FLOAT,
                     int64_t seed = 0, int64_t seed2 = 0);
Output RandomStandardNormal(const Scope& scope, Input shape, DataType dtype = DT_FLOAT,
                            int64_t seed = 0, int64_t seed2 = 0);
Output TruncatedNormal(const Scope& scope, Input shape, DataType dtype = DT_FLOAT,
                       int64_t seed = 0, int64_t seed2 = 0);

Output StatelessRandomUniform(const Scope& scope, Input shape, Input seed, DataType dtype = DT_FLOAT);
Output StatelessRandomNormal(const Scope& scope, Input shape, Input seed, DataType dtype = DT_FLOAT);
Output StatelessTruncatedNormal(const Scope& scope, Input shape, Input seed, DataType dtype = DT_FLOAT);

}  // namespace tact

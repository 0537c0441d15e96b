// PyTorch (Debian's python3-torch) as a reference for the gradient tests: a
// Python script that prints tensors, one per line, read back as numbers.
// Tests skip, saying so, where PyTorch is not installed
// (scripts/setup_peers.sh installs it).
#pragma once

#include <string>
#include <vector>

#include "graph/status.h"
#include "graph/tensor.h"

namespace tact::test {

// True where /usr/bin/python3 can import torch.
bool TorchAvailable();

// What every script starts with: torch and torch.nn.functional as F
// imported, one thread, and out(t), which prints t's elements on one line.
extern const char kTorchPreamble[];

// The elements of a double tensor as the body of a Python list literal,
// NaN and the infinities included.
std::string PythonList(const Tensor& t);

// A Python expression for a float64 tensor of t's values and shape.
std::string TorchTensor(const Tensor& t);

// The elements of a double tensor.
std::vector<double> FlatDoubles(const Tensor& t);

// Runs `script` with /usr/bin/python3; each printed line's numbers.
StatusOr<std::vector<std::vector<double>>> RunTorchScript(const std::string& script);

// Expects each got[j] within tol * (1 + |want[j]|) of want[j]; a NaN or an
// infinity in `want` must be matched exactly.
void ExpectMatches(const std::vector<double>& got, const std::vector<double>& want, double tol);

}  // namespace tact::test

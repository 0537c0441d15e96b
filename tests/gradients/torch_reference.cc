#include "tests/gradients/torch_reference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tests/apps/run_command.h"

namespace tact::test {

bool TorchAvailable() {
  return RunCommand("/usr/bin/python3 -c 'import torch' 2>&1").status == 0;
}

const char kTorchPreamble[] =
    "import torch\nimport torch.nn.functional as F\ntorch.set_num_threads(1)\n"
    "def out(t):\n    print(' '.join(repr(float(v)) for v in t.detach().reshape(-1)))\n";

std::string PythonList(const Tensor& t) {
  std::ostringstream out;
  out.precision(17);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    const double v = t.data<double>()[i];
    if (std::isnan(v)) {
      out << "float('nan'),";
    } else if (std::isinf(v)) {
      out << (v < 0 ? "-" : "") << "float('inf'),";
    } else {
      out << v << ",";
    }
  }
  return out.str();
}

std::string TorchTensor(const Tensor& t) {
  std::string shape;
  for (int d = 0; d < t.dims(); ++d) shape += std::to_string(t.dim_size(d)) + ",";
  return "torch.tensor([" + PythonList(t) + "], dtype=torch.float64).reshape(" + shape + ")";
}

std::vector<double> FlatDoubles(const Tensor& t) {
  return std::vector<double>(t.data<double>(), t.data<double>() + t.NumElements());
}

StatusOr<std::vector<std::vector<double>>> RunTorchScript(const std::string& script) {
  char dir[] = "/tmp/tact_torch_XXXXXX";
  if (mkdtemp(dir) == nullptr) return errors::Internal("cannot make a temporary folder");
  const std::string path = std::string(dir) + "/script.py";
  std::ofstream(path) << script;
  CommandResult r = RunCommand("/usr/bin/python3 " + path + " 2>&1");
  std::system(("rm -rf " + std::string(dir)).c_str());
  if (r.status != 0) return errors::Internal("the PyTorch script failed: ", r.out);
  std::vector<std::vector<double>> lines;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    lines.emplace_back();
    for (std::string w; words >> w;) lines.back().push_back(std::strtod(w.c_str(), nullptr));
  }
  return lines;
}

void ExpectMatches(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t j = 0; j < want.size(); ++j) {
    if (std::isnan(want[j]) || std::isinf(want[j])) {
      EXPECT_TRUE(std::isnan(want[j]) ? std::isnan(got[j]) : got[j] == want[j])
          << "element " << j << ": tact " << got[j] << ", PyTorch " << want[j];
      continue;
    }
    EXPECT_NEAR(got[j], want[j], tol * (1 + std::fabs(want[j])))
        << "element " << j << ": tact " << got[j] << ", PyTorch " << want[j];
  }
}

}  // namespace tact::test

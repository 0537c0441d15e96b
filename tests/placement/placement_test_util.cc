#include "tests/placement/placement_test_util.h"

#include <gtest/gtest.h>

#include <map>

#include "graph/nn/models.h"
#include "graph/gradients/gradients.h"
#include "graph/nn/optimizers.h"
#include "graph/nn/variables.h"
#include "graph/ops/all_ops.h"
#include "placement/placer.h"

namespace tact::placement_test {

std::string Dev(int task, const std::string& type, int id, const std::string& job) {
  return "/job:" + job + "/replica:0/task:" + std::to_string(task) + "/device:" + type + ":" +
         std::to_string(id);
}

std::vector<std::string> LocalCpus(int n) {
  std::vector<std::string> d;
  for (int i = 0; i < n; ++i) d.push_back(Dev(0, "CPU", i, "localhost"));
  return d;
}

Status BuildTrainingGraph(const Scope& s, const std::string& model) {
  auto images = Placeholder(s.WithOpName("images"), DT_FLOAT, PartialTensorShape({32, 28, 28, 1}));
  auto labels = Placeholder(s.WithOpName("labels"), DT_INT32, PartialTensorShape({32}));
  auto training = Placeholder(s.WithOpName("training"), DT_BOOL, PartialTensorShape({}));
  Output step = GlobalStep(s);
  Output logits = BuildModel(s.NewSubScope(model), model, images, training, 1, step);
  TACT_RETURN_IF_ERROR(s.status());
  auto xent = SparseSoftmaxCrossEntropyWithLogits(s, logits, labels);
  auto loss = Mean(s.WithOpName("loss"), xent[0], 0);
  std::vector<Output> vars;
  for (const VariableInfo& v : TrainableVariables(s)) vars.push_back(v.var);
  std::vector<Output> grads;
  TACT_RETURN_IF_ERROR(AddSymbolicGradients(s.NewSubScope("gradients"), {loss}, vars, {}, &grads));
  GradsAndVars gv;
  for (size_t i = 0; i < vars.size(); ++i) gv.emplace_back(grads[i], vars[i]);
  TACT_RETURN_IF_ERROR(ApplyGradients(s, Optimizer::Adam(1e-3), gv, step, false).status());
  return s.status();
}

void BuildWideGraph(const Scope& s, int width, int depth, int64_t n) {
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT, PartialTensorShape({64, n}));
  std::vector<Input> ends;
  for (int j = 0; j < width; ++j) {
    Output h = x;
    for (int i = 0; i < depth; ++i) {
      Scope l = s.NewSubScope("layer" + std::to_string(i)).NewSubScope("chain" + std::to_string(j));
      auto w = Variable(l.WithOpName("w"), PartialTensorShape({n, n}));
      h = Relu(l, MatMul(l, h, w));
    }
    ends.push_back(h);
  }
  AddN(s.WithOpName("sum"), ends);
}

namespace {

std::vector<std::string> Split(const std::string& name) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t end = name.find('/', start);
    parts.push_back(name.substr(start, end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

std::string LayerKey(const std::string& name) {
  std::vector<std::string> p = Split(name);
  size_t i = 0;
  while (i < p.size() && (p[i] == "gradients" || p[i] == "Adam")) ++i;
  std::string key;
  for (size_t k = i; k < p.size() && k < i + 2; ++k) key += "/" + p[k];
  return key;
}

}  // namespace

void AssignRoundRobinByLayer(Graph* g, const std::vector<std::string>& devices) {
  auto order = g->TopologicalOrder();
  ASSERT_TRUE(order.ok()) << order.status().ToString();
  std::map<std::string, int> layer;
  for (Node* n : *order) {
    auto [it, added] = layer.emplace(LayerKey(n->name()), static_cast<int>(layer.size()));
    n->set_assigned_device(devices[it->second % devices.size()]);
  }
}

void AssignAll(Graph* g, const std::string& device) {
  for (Node* n : g->nodes()) n->set_assigned_device(device);
}

double Makespan(const Graph& g, const CostModel& cost) {
  auto m = SimulatedMakespan(g, cost);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return m.ok() ? *m : -1;
}

}  // namespace tact::placement_test

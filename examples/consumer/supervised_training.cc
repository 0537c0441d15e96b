// How to use tact from a program of your own: build a model with the
// builder API, train it on a local cluster of worker processes (one
// parameter server, one worker) through a SupervisedSession that saves a
// checkpoint every 5 steps, kill the parameter server (and with it every
// variable) in the middle through the fault API, and check that the run
// resumed and ended with the variables of the same run without the fault.
// The steps run through SupervisedSession::RunSteps, which sends each step
// while the one before runs.
//
//   supervised_training [path/to/tact]    (default: the installed one)
//
// Prints what happened and exits 0 when the two runs agree bit for bit.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "actors/supervised_session.h"
#include "apps/cluster/faults.h"
#include "apps/cluster/local_cluster.h"
#include "graph/gradients/gradients.h"
#include "graph/nn/initializers.h"
#include "graph/nn/optimizers.h"
#include "graph/nn/variables.h"
#include "graph/ops/all_ops.h"

using namespace tact;

namespace {

constexpr int64_t kSteps = 40;

// Linear regression y = x w + b, fitted with Adam. The variables (and
// Adam's slots) live on the parameter server, the rest on the worker.
struct Model {
  GraphDef graph;
  std::string x, y, loss, train, init, w, b;
};

StatusOr<Model> BuildModel() {
  Scope root = Scope::NewRootScope();
  Scope ps = root.WithDevice("/job:ps/task:0");
  Scope worker = root.WithDevice("/job:worker/task:0");
  Output w = VariableWithInit(ps, "w", {3, 1}, GlorotUniformInit(7));
  Output b = VariableWithInit(ps, "b", {1}, GlorotUniformInit(8));
  Output x = Placeholder(worker.WithOpName("x"), DT_FLOAT);
  Output y = Placeholder(worker.WithOpName("y"), DT_FLOAT);
  Output error = Sub(worker, Add(worker, MatMul(worker, x, w), b), y);
  Output loss = Mean(worker.WithOpName("loss"), Square(worker, error),
                     Const(worker, Tensor::FromVector<int32_t>({0, 1})));
  std::vector<Output> grads;
  TACT_RETURN_IF_ERROR(AddSymbolicGradients(worker, {loss}, {w, b}, {}, &grads));
  TACT_ASSIGN_OR_RETURN(Output train, ApplyGradients(ps, Optimizer::Adam(0.1), {{grads[0], w}, {grads[1], b}},
                                                     GlobalStep(ps), /*check_numerics=*/false));
  Node* init = InitAllVariables(root.WithOpName("init"));  // after the optimizer: its slots too
  Model m;
  TACT_ASSIGN_OR_RETURN(m.graph, root.ToGraphDef());
  m.x = x.name();
  m.y = y.name();
  m.loss = loss.name();
  m.train = train.node->name();
  m.init = init->name();
  m.w = w.name();
  m.b = b.name();
  return m;
}

// Step k's batch, the same in every run: 16 rows of y = 2 x0 - x1 + 0.5 x2 + 3.
std::vector<std::pair<std::string, Tensor>> Batch(const Model& m, int64_t k) {
  std::vector<float> xs(48), ys(16);
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 3; ++j) xs[i * 3 + j] = static_cast<float>(std::cos(0.37 * (k * 48 + i * 3 + j)));
    ys[i] = 2 * xs[i * 3] - xs[i * 3 + 1] + 0.5f * xs[i * 3 + 2] + 3;
  }
  return {{m.x, Tensor::FromVector<float>(xs, TensorShape({16, 3}))},
          {m.y, Tensor::FromVector<float>(ys, TensorShape({16, 1}))}};
}

struct RunResult {
  std::vector<float> variables;  // w then b
  float last_loss = 0;
  std::vector<RecoveryEvent> recoveries;
};

// Trains kSteps on a fresh local cluster; `fault` (a spec of
// apps/cluster/faults.h, or empty) is injected before `fault_step`.
StatusOr<RunResult> Train(const Model& m, const std::string& tact_binary, const std::string& checkpoint_dir,
                          const std::string& fault, int64_t fault_step) {
  apps::LocalClusterOptions c;
  c.binary = tact_binary;
  c.jobs = {{"ps", 1}, {"worker", 1}};
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<apps::LocalCluster> cluster, apps::LocalCluster::Start(c));

  SessionOptions options;
  options.cluster = cluster->spec();
  options.cluster_secret = cluster->secret();
  options.supervision.restart_task = cluster->Restarter();  // a lost task's process is started again
  options.supervision.task_wait_ms = 30000;                 // and Runs wait for it that long
  options.supervision.max_restarts = 3;
  options.supervision.checkpoint.dir = checkpoint_dir;
  options.supervision.checkpoint.every_steps = 5;
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<SupervisedSession> session,
                        SupervisedSession::Create(options, m.graph, m.init));

  RunResult r;
  // Each step is sent while the one before runs, except where a checkpoint
  // comes between them; a RunStep loop ends with the same variables.
  StepLoop loop;
  loop.feeds = [&m](int64_t k) -> StatusOr<StepLoop::Feeds> { return Batch(m, k); };
  loop.fetches = {m.loss};
  loop.targets = {m.train};
  loop.after_step = [&r](int64_t, const SupervisedStepResult& step) {
    if (step.recovery) {
      r.recoveries.push_back(*step.recovery);  // step() went back to the checkpoint
    } else {
      r.last_loss = step.fetched[0].scalar<float>();
    }
    return true;  // false would end the loop here
  };
  if (!fault.empty()) {
    loop.until = fault_step;
    TACT_RETURN_IF_ERROR(session->RunSteps(loop));
    TACT_ASSIGN_OR_RETURN(apps::Fault f, apps::ParseFault(fault));
    TACT_RETURN_IF_ERROR(apps::InjectFault(f, {cluster.get(), &session->session(), checkpoint_dir}));
  }
  loop.until = kSteps;
  TACT_RETURN_IF_ERROR(session->RunSteps(loop));
  TACT_ASSIGN_OR_RETURN(std::vector<Tensor> values, session->session().Run({}, {m.w, m.b}, {}));
  for (const Tensor& t : values) {
    for (int64_t i = 0; i < t.NumElements(); ++i) r.variables.push_back(t.data<float>()[i]);
  }
  TACT_RETURN_IF_ERROR(session->Close());
  return r;
}

int Fail(const Status& s) {
  std::fprintf(stderr, "supervised_training: %s\n", s.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string tact_binary = argc > 1 ? argv[1] : TACT_EXECUTABLE;
  char dir_template[] = "/tmp/tact_example_XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (dir == nullptr) return Fail(errors::Internal("mkdtemp: ", std::strerror(errno)));

  StatusOr<Model> model = BuildModel();
  if (!model.ok()) return Fail(model.status());
  StatusOr<RunResult> clean = Train(*model, tact_binary, std::string(dir) + "/clean", "", 0);
  if (!clean.ok()) return Fail(clean.status());
  std::printf("fault-free run: %lld steps, last loss %.5f\n", static_cast<long long>(kSteps),
              clean->last_loss);

  StatusOr<RunResult> faulted =
      Train(*model, tact_binary, std::string(dir) + "/faulted", "kill:ps:0@step=23", 23);
  if (!faulted.ok()) return Fail(faulted.status());
  for (const RecoveryEvent& e : faulted->recoveries) {
    std::printf("step %lld failed (%s)\n  resumed from the checkpoint of step %lld: %lld steps lost, "
                "recovered in %.0f ms\n",
                static_cast<long long>(e.failed_step), e.cause.ToString().c_str(),
                static_cast<long long>(e.resumed_from), static_cast<long long>(e.steps_lost), e.recovery_ms);
  }
  std::system((std::string("rm -rf ") + dir).c_str());

  const bool same = faulted->variables == clean->variables;
  std::printf("run with the parameter server killed before step 23: %zu recovery, last loss %.5f\n",
              faulted->recoveries.size(), faulted->last_loss);
  std::printf("variables equal to the fault-free run's, bit for bit: %s\n", same ? "yes" : "NO");
  return same && faulted->recoveries.size() == 1 ? 0 : 1;
}

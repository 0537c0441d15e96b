// `tact example`: the paper's Figure 1 program, built with the builder API,
// serialised to a Cap'n Proto GraphDef and read back, then run through a
// Session.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>

#include "actors/session.h"
#include "apps/cli/commands.h"
#include "apps/cli/exit_status.h"
#include "graph/graph_def_codec.h"
#include "graph/ops/all_ops.h"

namespace tact::apps {
namespace {

Status Example() {
  Scope s = Scope::NewRootScope();
  auto b = Variable(s, {100});
  auto W = Variable(s, {784, 100});
  auto x = Placeholder(s, DT_FLOAT);
  auto relu = Relu(s, Add(s, MatMul(s, x, W), b));
  // Initial values: W = 0.01 everywhere, b = -1 .. 0.98 in steps of 0.02.
  Tensor w0(DT_FLOAT, {784, 100});
  std::fill(w0.data<float>(), w0.data<float>() + w0.NumElements(), 0.01f);
  std::vector<float> b0(100);
  for (int i = 0; i < 100; ++i) b0[i] = -1.0f + 0.02f * static_cast<float>(i);
  auto init_W = Assign(s, W, w0);
  auto init_b = Assign(s, b, Tensor::FromVector<float>(b0));
  TACT_ASSIGN_OR_RETURN(GraphDef def, s.ToGraphDef());
  TACT_ASSIGN_OR_RETURN(std::string bytes, SerializeGraphDef(def));
  TACT_ASSIGN_OR_RETURN(GraphDef back, ParseGraphDef(bytes));
  if (!(back == def)) return errors::Internal("GraphDef round trip changed the graph");
  std::printf("Figure 1 graph: %zu nodes, %zu bytes as a Cap'n Proto GraphDef (round trip exact)\n",
              def.nodes.size(), bytes.size());
  for (const NodeDef& n : def.nodes) {
    std::printf("  %-12s %-12s", n.name.c_str(), n.op.c_str());
    for (const std::string& in : n.inputs) std::printf(" %s", in.c_str());
    std::printf("\n");
  }
  // Run it: initialise, then relu(x W + b) for x = ones(1, 784), which is
  // 7.84 + b: [6.84, 6.86, ..., 8.82].
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Create());
  TACT_RETURN_IF_ERROR(session->Extend(back));
  TACT_RETURN_IF_ERROR(session->Run({}, {}, {init_W.node->name(), init_b.node->name()}).status());
  Tensor ones(DT_FLOAT, {1, 784});
  std::fill(ones.data<float>(), ones.data<float>() + 784, 1.0f);
  TACT_ASSIGN_OR_RETURN(std::vector<Tensor> out,
                        session->Run({{x.name(), ones}}, {relu.name()}, {}));
  std::printf("Session::Run fetch %s: %s\n", relu.name().c_str(), out[0].DebugString(4).c_str());
  return session->Close();
}

}  // namespace

void AddExampleCommand(CLI::App& app, std::function<int()>& run) {
  CLI::App* cmd = app.add_subcommand("example", "build the paper's Figure 1 graph and print it");
  cmd->callback([&run] { run = ExitStatusOf("example", Example); });
}

}  // namespace tact::apps

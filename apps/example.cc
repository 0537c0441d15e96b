// `tact example`: the paper's Figure 1 program, built with the builder API,
// serialised to a Cap'n Proto GraphDef and read back.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "apps/commands.h"
#include "graph/graph_def_codec.h"
#include "graph/ops/all_ops.h"

namespace tact::apps {
namespace {

int RunExample() {
  Scope s = Scope::NewRootScope();
  auto b = Variable(s, {100});
  auto W = Variable(s, {784, 100});
  auto x = Placeholder(s, DT_FLOAT);
  auto relu = Relu(s, Add(s, MatMul(s, x, W), b));
  StatusOr<GraphDef> def = s.ToGraphDef();
  if (!def.ok()) {
    std::fprintf(stderr, "tact example: %s\n", def.status().ToString().c_str());
    return 1;
  }
  StatusOr<std::string> bytes = SerializeGraphDef(*def);
  if (!bytes.ok()) {
    std::fprintf(stderr, "tact example: %s\n", bytes.status().ToString().c_str());
    return 1;
  }
  StatusOr<GraphDef> back = ParseGraphDef(*bytes);
  if (!back.ok() || !(*back == *def)) {
    std::fprintf(stderr, "tact example: GraphDef round trip failed\n");
    return 1;
  }
  std::printf("Figure 1 graph: %zu nodes, %zu bytes as a Cap'n Proto GraphDef (round trip exact)\n",
              def->nodes.size(), bytes->size());
  for (const NodeDef& n : def->nodes) {
    std::printf("  %-12s %-12s", n.name.c_str(), n.op.c_str());
    for (const std::string& in : n.inputs) std::printf(" %s", in.c_str());
    std::printf("\n");
  }
  std::printf("fetch: %s\n", relu.name().c_str());
  return 0;
}

}  // namespace

void AddExampleCommand(CLI::App& app, std::function<int()>& run) {
  CLI::App* cmd = app.add_subcommand("example", "build the paper's Figure 1 graph and print it");
  cmd->callback([&run] { run = RunExample; });
}

}  // namespace tact::apps

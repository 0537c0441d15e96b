// `tact grad`: adds the symbolic gradients of a tensor with respect to
// others to a GraphDef file (paper 4.1), so gradients can be checked or
// exported without writing C++:
//
//   tact grad --graph g.txt --y loss:0 --x w:0,b:0 --out gg.txt
//
// Each gradient gets an Identity named "grad/<y node>/<x node>_<port>"
// (printed, one line per x): fetch it with `tact run --graph gg.txt`. The
// output is the text form unless --binary. Errors (a missing file, a name
// that is not in the graph, an op without a gradient) name what is wrong
// and exit 1.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "apps/cli/commands.h"
#include "apps/cli/exit_status.h"
#include "apps/cli/graph_file.h"
#include "graph/gradients/gradients.h"
#include "graph/ops/core_ops.h"
#include "graph/shape_refiner.h"
#include "graph/subgraph.h"

namespace tact::apps {
namespace {

struct GradFlags {
  std::string graph, y, out;
  std::vector<std::string> xs;
  bool binary = false;
};

StatusOr<Output> FindTensor(const Graph& g, const std::string& name, const char* flag) {
  TACT_ASSIGN_OR_RETURN(TensorId id, ParseTensorId(name));
  Node* n = g.FindNode(id.node);
  if (n == nullptr) return errors::NotFound(flag, " '", name, "': the graph has no node '", id.node, "'");
  if (id.port < 0 || id.port >= n->num_outputs()) {
    return errors::InvalidArgument(flag, " '", name, "': node '", id.node, "' has ", n->num_outputs(),
                                   " outputs");
  }
  return Output(n, id.port);
}

Status AddGradients(const GradFlags& f) {
  TACT_ASSIGN_OR_RETURN(GraphDef def, ReadGraphFile(f.graph));
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, Graph::FromGraphDef(def));
  TACT_RETURN_IF_ERROR(InferShapes(graph.get()));
  Scope s = Scope::FromGraph(std::shared_ptr<Graph>(std::move(graph)));
  TACT_ASSIGN_OR_RETURN(Output y, FindTensor(*s.graph(), f.y, "--y"));
  std::vector<Output> xs;
  for (const std::string& x : f.xs) {
    TACT_ASSIGN_OR_RETURN(Output o, FindTensor(*s.graph(), x, "--x"));
    for (size_t i = 0; i < xs.size(); ++i) {
      if (xs[i].node == o.node && xs[i].index == o.index) {
        return errors::InvalidArgument("--x names ", o.node->name(), ":", o.index, " twice ('", f.xs[i],
                                       "' and '", x, "')");
      }
    }
    xs.push_back(o);
  }
  if (xs.empty()) return errors::InvalidArgument("--x names no tensor");
  std::vector<Output> grads;
  TACT_RETURN_IF_ERROR(AddSymbolicGradients(s, {y}, xs, {}, &grads));
  // Printed once the file is written: a run that cannot write it says
  // only that.
  std::string said;
  for (size_t i = 0; i < xs.size(); ++i) {
    if (!grads[i].ok()) {
      said += f.xs[i] + ": no gradient (" + DataTypeString(xs[i].type()) + ")\n";
      continue;
    }
    const std::string name =
        "grad/" + y.node->name() + "/" + xs[i].node->name() + "_" + std::to_string(xs[i].index);
    const Output named = Identity(s.WithOpName(name), grads[i]);
    TACT_RETURN_IF_ERROR(s.status());
    said += "d " + f.y + " / d " + f.xs[i] + " -> " + named.name() + "\n";
  }
  TACT_ASSIGN_OR_RETURN(GraphDef out, s.ToGraphDef());
  TACT_RETURN_IF_ERROR(WriteGraphFile(f.out, out, f.binary));
  std::fputs(said.c_str(), stdout);
  return Status::OK();
}

}  // namespace

void AddGradCommand(CLI::App& app, std::function<int()>& run) {
  auto f = std::make_shared<GradFlags>();
  CLI::App* cmd = app.add_subcommand("grad", "add the gradients of a tensor to a GraphDef file");
  cmd->add_option("--graph", f->graph, "GraphDef file (binary or capnp text)")->required();
  cmd->add_option("--y", f->y, "the tensor to differentiate, name:port")->required();
  cmd->add_option("--x", f->xs, "with respect to these tensors, name:port (comma-separated or repeated)")
      ->required()
      ->delimiter(',');
  cmd->add_option("--out", f->out, "where to write the GraphDef with the gradients")->required();
  cmd->add_flag("--binary", f->binary, "write binary Cap'n Proto rather than text");
  cmd->callback([f, &run] { run = ExitStatusOf("grad", [f] { return AddGradients(*f); }); });
}

}  // namespace tact::apps

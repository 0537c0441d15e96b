// `tact run`: one Session::Run of a GraphDef file, with feeds and fetches
// as NumPy .npy files.
//
//   tact run --graph g.capnp --feed x:0=x.npy --fetch relu:0 --out results/ [--trace step.json]
//            [--allow-soft-placement] [--timeout-ms 5000]
//
// The graph file may be a binary Cap'n Proto GraphDef or its text form.
// A fetch "scope/name:1" is written to out/scope_name_1.npy. NumPy has no
// bfloat16: such a fetch is written as float32, and a float32 file feeds a
// bfloat16 tensor.
// Every bad input (a missing or malformed file, a feed without '=', an
// error from the graph or a kernel) prints a message and exits 1.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include "actors/session.h"
#include "apps/cli/commands.h"
#include "apps/cli/exit_status.h"
#include "apps/cli/graph_file.h"
#include "apps/cli/integer_flags.h"
#include "apps/train/chrome_trace.h"
#include "graph/graph.h"
#include "graph/npy.h"
#include "graph/subgraph.h"

namespace tact::apps {
namespace {

struct RunFlags {
  std::string graph;
  std::vector<std::string> feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
  std::string out = ".";
  std::string trace;  // a Chrome trace file of the step, if named
  // Nodes pinned to devices this machine lacks (a graph written where a GPU
  // was) go where kernels fit, as TensorFlow's allow_soft_placement.
  bool allow_soft_placement = false;
  // The step is aborted after this long (RunOptions::timeout_ms); 0, the
  // default, waits as long as the graph does, as TensorFlow's Session.run.
  // A graph can wait on purpose (a Dequeue on a queue nothing fills).
  int64_t timeout_ms = 0;
};

// Where each fetch is written: "scope/name:1" -> out/scope_name_1.npy.
// Two different fetches that would share a file are refused before the
// run: the second would silently overwrite the first.
StatusOr<std::vector<std::string>> FetchPaths(const RunFlags& flags) {
  std::vector<std::string> paths;
  std::map<std::string, std::string> fetch_of_path;
  for (const std::string& fetch : flags.fetches) {
    TACT_ASSIGN_OR_RETURN(TensorId id, ParseTensorId(fetch));
    std::string name = id.node;
    std::replace(name.begin(), name.end(), '/', '_');  // scoped names stay one file
    const std::string path = flags.out + "/" + name + "_" + std::to_string(id.port) + ".npy";
    const auto [it, added] = fetch_of_path.emplace(path, fetch);
    if (!added && it->second != fetch) {
      return errors::InvalidArgument("--fetch '", it->second, "' and --fetch '", fetch,
                                     "' would both be written to '", path, "'");
    }
    paths.push_back(path);
  }
  return paths;
}

// NumPy has no bfloat16, so float32 is its .npy form both ways: a fetch
// widens (exactly), a feed of float32 for a bfloat16 tensor narrows (to
// nearest even), as TensorFlow's feed_dict converts to the fed tensor's dtype.
template <typename To, typename From>
StatusOr<Tensor> Converted(const Tensor& t) {
  TACT_ASSIGN_OR_RETURN(Tensor out,
                        Tensor::Allocate(CpuAllocator(), DataTypeToEnum<To>::value, t.shape()));
  const From* in = t.data<From>();
  To* to = out.data<To>();
  for (int64_t i = 0; i < t.NumElements(); ++i) to[i] = static_cast<To>(in[i]);
  return out;
}

// The type the graph gives tensor `name` ("node:port"), or DT_INVALID where
// the graph or the name does not resolve (Extend and Run then say what is
// wrong). `graph` is built on first use.
DataType TypeInGraph(const GraphDef& def, std::unique_ptr<Graph>* graph, const std::string& name) {
  if (*graph == nullptr) {
    StatusOr<std::unique_ptr<Graph>> built = Graph::FromGraphDef(def);
    if (!built.ok()) return DT_INVALID;
    *graph = std::move(*built);
  }
  const StatusOr<TensorId> id = ParseTensorId(name);
  const Node* node = id.ok() ? (*graph)->FindNode(id->node) : nullptr;
  if (node == nullptr || id->port < 0 || id->port >= node->num_outputs()) return DT_INVALID;
  return BaseType(node->output_type(id->port));
}

using Feeds = std::vector<std::pair<std::string, Tensor>>;

StatusOr<Feeds> ReadFeeds(const RunFlags& flags, const GraphDef& def) {
  std::unique_ptr<Graph> graph;  // built only if a float32 file is fed
  Feeds feeds;
  for (const std::string& f : flags.feeds) {
    const size_t eq = f.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == f.size()) {
      return errors::InvalidArgument("--feed '", f, "' must be name:port=file.npy");
    }
    TACT_ASSIGN_OR_RETURN(Tensor t, ReadNpyFile(f.substr(eq + 1)));
    if (t.dtype() == DT_FLOAT && TypeInGraph(def, &graph, f.substr(0, eq)) == DT_BFLOAT16) {
      TACT_ASSIGN_OR_RETURN(t, (Converted<bfloat16, float>(t)));
    }
    feeds.emplace_back(f.substr(0, eq), std::move(t));
  }
  return feeds;
}

// The .npy form of a fetch; every fetch is checked before any file is
// written, so a refused one leaves no partial results behind.
StatusOr<Tensor> NpyForm(const std::string& fetch, const Tensor& t) {
  if (t.dtype() == DT_BFLOAT16) return Converted<float, bfloat16>(t);
  if (!HasNpyForm(t.dtype())) {
    return errors::InvalidArgument("fetch '", fetch, "' is a ", DataTypeString(t.dtype()),
                                   " tensor, which has no .npy form");
  }
  return t;
}

Status RunGraph(const RunFlags& flags) {
  TACT_ASSIGN_OR_RETURN(GraphDef def, ReadGraphFile(flags.graph));
  TACT_ASSIGN_OR_RETURN(const std::vector<std::string> paths, FetchPaths(flags));
  TACT_ASSIGN_OR_RETURN(auto feeds, ReadFeeds(flags, def));
  SessionOptions options;
  options.allow_soft_placement = flags.allow_soft_placement;
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Create(options));
  TACT_RETURN_IF_ERROR(session->Extend(def));
  RunOptions run_options;
  run_options.timeout_ms = flags.timeout_ms > 0 ? flags.timeout_ms : RunOptions::kNoTimeout;
  RunMetadata meta;
  TACT_ASSIGN_OR_RETURN(std::vector<Tensor> out,
                        session->Run(run_options, feeds, flags.fetches, flags.targets,
                                     flags.trace.empty() ? nullptr : &meta));
  std::vector<Tensor> npy;
  for (size_t i = 0; i < out.size(); ++i) {
    TACT_ASSIGN_OR_RETURN(Tensor t, NpyForm(flags.fetches[i], out[i]));
    npy.push_back(std::move(t));
  }
  std::error_code ec;
  std::filesystem::create_directories(flags.out, ec);
  if (ec) return errors::PermissionDenied("cannot create --out '", flags.out, "': ", ec.message());
  for (size_t i = 0; i < out.size(); ++i) {
    TACT_RETURN_IF_ERROR(WriteNpyFile(paths[i], npy[i]));
    std::printf("%s -> %s (%s%s)\n", flags.fetches[i].c_str(), paths[i].c_str(),
                out[i].DebugString(4).c_str(),
                out[i].dtype() == DT_BFLOAT16 ? "; written as float32, which holds it exactly" : "");
  }
  if (!flags.trace.empty()) {
    TACT_RETURN_IF_ERROR(WriteChromeTrace(flags.trace, meta.step_stats, def));
    std::printf("the step's node timeline -> %s (chrome://tracing or ui.perfetto.dev)\n",
                flags.trace.c_str());
  }
  return session->Close();
}

}  // namespace

void AddRunCommand(CLI::App& app, std::function<int()>& run) {
  auto flags = std::make_shared<RunFlags>();
  CLI::App* cmd = app.add_subcommand("run", "run a GraphDef file once, with .npy feeds and fetches");
  cmd->add_option("--graph", flags->graph, "GraphDef file (binary or capnp text)")->required();
  cmd->add_option("--feed", flags->feeds, "name:port=file.npy (repeatable)");
  cmd->add_option("--fetch", flags->fetches, "name:port (repeatable)");
  cmd->add_option("--target", flags->targets, "node to run for its effect (repeatable)");
  cmd->add_option("--out", flags->out, "directory for the fetched .npy files");
  cmd->add_option("--trace", flags->trace, "write the step's node timeline to this Chrome trace file");
  cmd->add_flag("--allow-soft-placement", flags->allow_soft_placement,
                "place nodes pinned to devices this machine lacks where their kernels fit");
  cmd->add_option("--timeout-ms", flags->timeout_ms,
                  "abort the step after this many ms (default 0: wait as long as the graph does)")
      ->check(NonNegativeInteger());
  cmd->callback([flags, &run] { run = ExitStatusOf("run", [flags] { return RunGraph(*flags); }); });
}

}  // namespace tact::apps

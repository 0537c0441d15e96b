// `tact bench`: the group every benchmark subcommand hangs from.
#include <CLI/CLI.hpp>

#include "apps/bench/bench.h"
#include "apps/bench/spread.h"
#include "apps/cli/commands.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace tact::apps {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string PeerScript(const std::string& name) {
  const char* src = std::getenv("TACT_SOURCE_DIR");
  return std::string(src ? src : TACT_SOURCE_DIR_DEFAULT) + "/scripts/peer/" + name;
}

std::optional<std::string> CommandOutput(const std::string& cmd) {
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return std::nullopt;
  std::string out;
  char buf[1024];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  if (pclose(p) != 0) return std::nullopt;
  return out;
}

nlohmann::ordered_json Spread(const std::vector<double>& runs) {
  std::vector<double> sorted = runs;
  std::sort(sorted.begin(), sorted.end());
  return {{"min", sorted.front()}, {"median", Median(sorted)}, {"max", sorted.back()}, {"runs", runs}};
}

void AddBenchCommand(CLI::App& app, std::function<int()>& run) {
  CLI::App* bench = app.add_subcommand("bench", "benchmarks; each prints one JSON line");
  bench->require_subcommand(1);
  AddBenchMatmul(*bench, run);
  AddBenchExecutor(*bench, run);
  AddBenchPlace(*bench, run);
  AddBenchTrain(*bench, run);
  AddBenchProfile(*bench, run);
  AddBenchSendRecv(*bench, run);
  AddBenchCheckpoint(*bench, run);
  AddBenchDistributed(*bench, run);
  AddBenchAsync(*bench, run);
  AddBenchInput(*bench, run);
  AddBenchServe(*bench, run);
  AddBenchEmbedding(*bench, run);
  AddBenchBatchNorm(*bench, run);
}

}  // namespace tact::apps

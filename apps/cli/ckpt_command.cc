// `tact ckpt {ls,show,verify} DIR`: what a checkpoint directory holds, and
// whether its latest checkpoint can be restored (checkpoint/checkpoint.h).
//
//   tact ckpt ls DIR                 committed steps: time, shards, bytes
//   tact ckpt show DIR [--step N]    variables: dtype, shape, checksum
//   tact ckpt verify DIR [--step N]  reads every variable; exit 1 if bad
//
// Every error exits 1 with a message that names the file.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <ctime>

#include "apps/cli/commands.h"
#include "checkpoint/checkpoint.h"
#include "checkpoint/checksum.h"
#include "graph/printable.h"

namespace tact::apps {
namespace {

struct CkptOptions {
  std::string dir;
  int64_t step = -1;  // -1: the latest committed
};

int Fail(const char* sub, const std::string& message) {
  std::fprintf(stderr, "tact ckpt %s: %s\n", sub, message.c_str());
  return 1;
}

std::string LocalTime(double wall_time) {
  const std::time_t t = static_cast<std::time_t>(wall_time);
  std::tm tm;
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

// The step to look at: --step, or the latest committed.
StatusOr<int64_t> ChosenStep(const CkptOptions& o) {
  if (o.step >= 0) return o.step;
  TACT_ASSIGN_OR_RETURN(std::vector<int64_t> steps, ListCheckpoints(o.dir));
  if (steps.empty()) return errors::NotFound("no checkpoint in '", o.dir, "'");
  return steps.back();
}

int RunLs(const CkptOptions& o) {
  StatusOr<std::vector<int64_t>> steps = ListCheckpoints(o.dir);
  if (!steps.ok()) return Fail("ls", steps.status().ToString());
  if (steps->empty()) {
    std::printf("no checkpoints in %s\n", o.dir.c_str());
    return 0;
  }
  std::printf("%12s  %-19s  %6s  %14s  %9s\n", "step", "time", "shards", "bytes", "variables");
  for (int64_t step : *steps) {
    StatusOr<CheckpointInfo> info = DescribeCheckpoint(o.dir, step);
    if (!info.ok()) {
      std::printf("%12lld  damaged: %s\n", static_cast<long long>(step), info.status().ToString().c_str());
      continue;
    }
    int64_t bytes = 0;
    for (const ShardInfo& s : info->shards) bytes += s.bytes;
    std::printf("%12lld  %-19s  %6zu  %14lld  %9zu\n", static_cast<long long>(step),
                LocalTime(info->wall_time).c_str(), info->shards.size(), static_cast<long long>(bytes),
                info->variables.size());
  }
  return 0;
}

int RunShow(const CkptOptions& o) {
  StatusOr<int64_t> step = ChosenStep(o);
  if (!step.ok()) return Fail("show", step.status().ToString());
  StatusOr<CheckpointInfo> info = DescribeCheckpoint(o.dir, *step);
  if (!info.ok()) return Fail("show", info.status().ToString());
  std::printf("step %lld, committed %s, %zu shard(s):\n", static_cast<long long>(info->step),
              LocalTime(info->wall_time).c_str(), info->shards.size());
  for (const ShardInfo& s : info->shards) {
    std::printf("  %s  %lld bytes  checksum %s\n", Printable(s.file).c_str(), static_cast<long long>(s.bytes),
                ChecksumHex(s.checksum).c_str());
  }
  std::printf("%zu variable(s):\n", info->variables.size());
  // Names as they are, but for bytes a terminal would act on (a file
  // written by another program may hold any).
  for (const StoredVariable& v : info->variables) {
    std::printf("  %s  %s %s  checksum %s  shard %d\n", Printable(v.name).c_str(),
                DataTypeString(v.dtype).c_str(), v.shape.DebugString().c_str(), ChecksumHex(v.checksum).c_str(),
                v.shard);
  }
  return 0;
}

int RunVerify(const CkptOptions& o) {
  StatusOr<int64_t> step = ChosenStep(o);
  if (!step.ok()) return Fail("verify", step.status().ToString());
  Status s = VerifyCheckpoint(o.dir, *step);
  if (s.ok()) {
    std::printf("ok: step %lld in %s\n", static_cast<long long>(*step), o.dir.c_str());
    return 0;
  }
  Fail("verify", "checkpoint of step " + std::to_string(*step) + " is bad: " + s.ToString());
  // What a restart would fall back to (without a graph to compare with).
  StatusOr<std::vector<int64_t>> steps = ListCheckpoints(o.dir);
  if (steps.ok()) {
    for (auto it = steps->rbegin(); it != steps->rend(); ++it) {
      if (*it < *step && VerifyCheckpoint(o.dir, *it).ok()) {
        std::fprintf(stderr, "tact ckpt verify: the latest good checkpoint is step %lld\n",
                     static_cast<long long>(*it));
        break;
      }
    }
  }
  return 1;
}

CLI::App* AddSub(CLI::App& ckpt, const char* name, const char* help, const std::shared_ptr<CkptOptions>& o,
                 bool with_step) {
  CLI::App* cmd = ckpt.add_subcommand(name, help);
  cmd->add_option("dir", o->dir, "checkpoint directory")->required();
  if (with_step) cmd->add_option("--step", o->step, "this step, not the latest committed");
  return cmd;
}

}  // namespace

void AddCkptCommand(CLI::App& app, std::function<int()>& run) {
  auto o = std::make_shared<CkptOptions>();
  CLI::App* ckpt = app.add_subcommand("ckpt", "list, show and verify HDF5 checkpoints");
  ckpt->require_subcommand(1);
  AddSub(*ckpt, "ls", "committed checkpoints: step, time, shards, bytes", o, false)
      ->callback([o, &run] { run = [o] { return RunLs(*o); }; });
  AddSub(*ckpt, "show", "a checkpoint's variables: dtype, shape, checksum", o, true)
      ->callback([o, &run] { run = [o] { return RunShow(*o); }; });
  AddSub(*ckpt, "verify", "read every variable of the latest checkpoint; exit 1 if it is bad", o, true)
      ->callback([o, &run] { run = [o] { return RunVerify(*o); }; });
}

}  // namespace tact::apps

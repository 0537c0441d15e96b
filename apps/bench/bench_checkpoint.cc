// `tact bench checkpoint --params N [--reps R] [--dir D] [--json]`: saving
// and restoring N float32 parameters as a checkpoint, beside the physical
// limit in the same directory and the same run: a plain write + fsync of the
// same bytes, and a plain read of them. The goal: save at least 0.8x
// the raw write.
//
// The parameters are split as a model's are (convolution kernels of
// Inception-like shapes, each with its bias), 13.6M being the paper's count
// for Inception. A save is WriteCheckpointShard + CommitCheckpoint (fsyncs
// included); a restore is ReadCheckpoint against the variables' specs
// (checksums verified) into freshly allocated tensors, as a restarted task
// would. The raw read also reads into fresh buffers. Before every read the
// file's pages are dropped from the page cache (written, fsynced, then
// POSIX_FADV_DONTNEED), so both reads come from the disk.
#include <CLI/CLI.hpp>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>

#include "apps/bench/bench.h"
#include "checkpoint/checkpoint.h"

namespace tact::apps {
namespace {

using Variables = std::vector<std::pair<std::string, Tensor>>;

// Kernel shapes of Inception v3's layers, cycled until N parameters.
const std::vector<std::vector<int64_t>> kKernelShapes = {
    {1, 1, 288, 64}, {3, 3, 64, 96},  {3, 3, 96, 96},    {1, 1, 768, 192}, {1, 7, 160, 160},
    {7, 1, 160, 192}, {3, 3, 384, 384}, {1, 1, 2048, 320}, {2048, 1000}};

Variables MakeVariables(int64_t params) {
  Variables vars;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-0.1f, 0.1f);
  auto add = [&](const std::string& name, std::vector<int64_t> dims) {
    Tensor t(DT_FLOAT, TensorShape(std::move(dims)));
    float* p = t.data<float>();
    for (int64_t i = 0; i < t.NumElements(); ++i) p[i] = dist(rng);
    params -= t.NumElements();
    vars.emplace_back(name, std::move(t));
  };
  for (int layer = 0; params > 0; ++layer) {
    const std::vector<int64_t>& dims = kKernelShapes[layer % kKernelShapes.size()];
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    const std::string scope = "layer_" + std::to_string(layer);
    if (n + dims.back() > params) {  // the rest, as one vector
      add(scope + "/kernel", {params});
      break;
    }
    add(scope + "/kernel", dims);
    add(scope + "/bias", {dims.back()});
  }
  return vars;
}

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

Status DropFromPageCache(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errors::Internal("cannot open '", path, "'");
  ::fdatasync(fd);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
  return Status::OK();
}

// The peer of a save: every tensor's bytes written in turn to one file,
// then fsync, as a program with no format at all would.
Status RawWrite(const std::string& path, const Variables& vars) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return errors::Internal("cannot create '", path, "'");
  for (const auto& [name, t] : vars) {
    const char* p = static_cast<const char*>(t.raw_data());
    size_t left = t.TotalBytes();
    while (left > 0) {
      const ssize_t n = ::write(fd, p, left);
      if (n <= 0) {
        ::close(fd);
        return errors::Internal("write to '", path, "' failed");
      }
      p += n;
      left -= n;
    }
  }
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  return synced ? Status::OK() : errors::Internal("fsync of '", path, "' failed");
}

Status RawRead(const std::string& path, const std::vector<VariableSpec>& specs) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errors::Internal("cannot open '", path, "'");
  std::vector<Tensor> out;
  for (const VariableSpec& s : specs) {
    Tensor t(s.dtype, s.shape);
    char* p = static_cast<char*>(t.raw_data());
    size_t left = t.TotalBytes();
    while (left > 0) {
      const ssize_t n = ::read(fd, p, left);
      if (n <= 0) {
        ::close(fd);
        return errors::Internal("read of '", path, "' failed");
      }
      p += n;
      left -= n;
    }
    out.push_back(std::move(t));
  }
  ::close(fd);
  return Status::OK();
}

}  // namespace

StatusOr<CheckpointBenchResult> BenchCheckpoint(int64_t params, int reps, const std::string& dir) {
  const Variables vars = MakeVariables(params);
  std::vector<VariableSpec> specs;
  for (const auto& [name, t] : vars) specs.push_back({name, t.dtype(), t.shape()});
  const double mb = params * sizeof(float) / 1e6;
  const std::string raw = dir + "/raw.bin";
  std::vector<double> save, restore, raw_write, raw_read;
  // One warm-up round (not counted), then `reps` timed ones; the two sides
  // alternate so that the machine's noise hits both alike.
  for (int rep = -1; rep < reps; ++rep) {
    const int64_t step = rep + 1;
    auto start = std::chrono::steady_clock::now();
    TACT_RETURN_IF_ERROR(WriteCheckpointShard(dir, step, 0, 1, vars));
    TACT_RETURN_IF_ERROR(CommitCheckpoint(dir, step, 1));
    const double save_s = Seconds(start);

    // A new file, as each checkpoint is: rewriting the old one in place would
    // also time ext4 freeing its blocks (O_TRUNC).
    std::remove(raw.c_str());
    start = std::chrono::steady_clock::now();
    TACT_RETURN_IF_ERROR(RawWrite(raw, vars));
    const double raw_write_s = Seconds(start);

    TACT_RETURN_IF_ERROR(DropFromPageCache(dir + "/ckpt-" + std::to_string(step) + ".shard-0-of-1.h5"));
    TACT_RETURN_IF_ERROR(DropFromPageCache(raw));
    start = std::chrono::steady_clock::now();
    TACT_RETURN_IF_ERROR(RawRead(raw, specs));
    const double raw_read_s = Seconds(start);

    start = std::chrono::steady_clock::now();
    TACT_RETURN_IF_ERROR(ReadCheckpoint(dir, step, specs).status());
    const double restore_s = Seconds(start);

    TACT_RETURN_IF_ERROR(PruneCheckpoints(dir, 1));
    if (rep < 0) continue;
    save.push_back(mb / save_s);
    raw_write.push_back(mb / raw_write_s);
    restore.push_back(mb / restore_s);
    raw_read.push_back(mb / raw_read_s);
  }
  CheckpointBenchResult r;
  r.params = params;
  r.variables = static_cast<int>(vars.size());
  r.save_mb_s = Median(save);
  r.restore_mb_s = Median(restore);
  r.raw_write_mb_s = Median(raw_write);
  r.raw_read_mb_s = Median(raw_read);
  return r;
}

void AddBenchCheckpoint(CLI::App& bench, std::function<int()>& run) {
  struct Options {
    int64_t params = 13600000;
    int reps = 5;
    std::string dir;  // empty: the system's temporary directory
    bool json = false;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = bench.add_subcommand(
      "checkpoint", "save and restore of N float32 parameters beside raw write+fsync and read");
  cmd->add_option("--params", opts->params, "float32 parameters")->check(CLI::Range(int64_t{1}, int64_t{1} << 32));
  cmd->add_option("--reps", opts->reps, "timed rounds (medians reported)")->check(CLI::Range(1, 1000));
  cmd->add_option("--dir", opts->dir, "write in a fresh directory under this one (default: $TMPDIR or /tmp)");
  cmd->add_flag("--json", opts->json, "print only the JSON line");
  cmd->callback([opts, &run] {
    run = [opts] {
      namespace fs = std::filesystem;
      std::error_code ec;
      // A fresh directory of our own, so that no earlier checkpoint is pruned
      // in its place; removed afterwards.
      const fs::path parent = opts->dir.empty() ? fs::temp_directory_path(ec) : fs::path(opts->dir);
      const std::string dir = (parent / ("tact_bench_ckpt_" + std::to_string(::getpid()))).string();
      fs::create_directories(dir, ec);
      if (ec) {
        std::fprintf(stderr, "tact bench checkpoint: cannot create '%s': %s\n", dir.c_str(), ec.message().c_str());
        return 1;
      }
      StatusOr<CheckpointBenchResult> r = BenchCheckpoint(opts->params, opts->reps, dir);
      fs::remove_all(dir, ec);
      if (!r.ok()) {
        std::fprintf(stderr, "tact bench checkpoint: %s\n", r.status().ToString().c_str());
        return 1;
      }
      const nlohmann::ordered_json line = {{"params", r->params},
                                           {"save_mb_s", r->save_mb_s},
                                           {"restore_mb_s", r->restore_mb_s},
                                           {"raw_write_mb_s", r->raw_write_mb_s},
                                           {"raw_read_mb_s", r->raw_read_mb_s},
                                           {"save_vs_raw", r->save_mb_s / r->raw_write_mb_s},
                                           {"restore_vs_raw", r->restore_mb_s / r->raw_read_mb_s},
                                           {"variables", r->variables}};
      if (!opts->json) {
        std::printf("checkpoint of %lld float32 parameters in %d variables, in %s (medians of %d):\n"
                    "  save %.0f MB/s (raw write+fsync %.0f MB/s, %.2fx); restore %.0f MB/s "
                    "(raw read %.0f MB/s, %.2fx), both reads from the disk\n",
                    static_cast<long long>(r->params), r->variables, dir.c_str(), opts->reps, r->save_mb_s,
                    r->raw_write_mb_s, r->save_mb_s / r->raw_write_mb_s, r->restore_mb_s, r->raw_read_mb_s,
                    r->restore_mb_s / r->raw_read_mb_s);
      }
      std::printf("%s\n", line.dump().c_str());
      return 0;
    };
  });
}

}  // namespace tact::apps

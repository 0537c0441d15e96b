// The checkpoint store of checkpoint.h: shards, the manifest that commits
// them, and the readers that trust nothing they have not checked.
#include "checkpoint/checkpoint.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include "checkpoint/checksum.h"
#include "checkpoint/durable_file.h"
#include "checkpoint/manifest.h"
#include "checkpoint/shard_file.h"

namespace tact {

using checkpoint_internal::Manifest;
using checkpoint_internal::ManifestShard;
using checkpoint_internal::ShardReader;

namespace {

double WallTimeNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string Join(const std::string& dir, const std::string& name) { return dir + "/" + name; }

// -1 if the file does not exist.
int64_t FileSize(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : -1;
}

StatusOr<std::vector<std::string>> ListDirectory(const std::string& dir) {
  std::error_code ec;
  std::vector<std::string> names;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    names.push_back(it->path().filename().string());
  }
  if (ec) return errors::NotFound("cannot list checkpoint directory '", dir, "': ", ec.message());
  return names;
}

StatusOr<Manifest> LoadManifest(const std::string& dir, int64_t step) {
  const std::string path = Join(dir, checkpoint_internal::ManifestFileName(step));
  StatusOr<std::string> text = checkpoint_internal::ReadWholeFile(path);
  if (!text.ok()) {
    if (text.status().code() == Code::kNotFound) {
      return errors::NotFound("no checkpoint of step ", step, " in '", dir, "' (no manifest '", path, "')");
    }
    return text.status();
  }
  TACT_ASSIGN_OR_RETURN(Manifest m, checkpoint_internal::ParseManifest(*text, path));
  if (m.step != step) return errors::DataLoss("checkpoint manifest '", path, "' is of step ", m.step);
  return m;
}

// The bytes of a file of `size` bytes outside `data` (sorted, disjoint).
std::vector<ByteExtent> Outside(int64_t size, const std::vector<ByteExtent>& data) {
  std::vector<ByteExtent> out;
  int64_t at = 0;
  for (const ByteExtent& d : data) {
    if (d.offset > at) out.push_back({at, d.offset - at});
    at = std::max(at, d.offset + d.length);
  }
  if (size > at) out.push_back({at, size - at});
  return out;
}

// Opens every shard the manifest names and checks it is the one committed:
// same size and same metadata (a truncated or damaged file is refused
// before HDF5 reads it), same step and position, same index checksum.
StatusOr<std::vector<std::unique_ptr<ShardReader>>> OpenShards(const std::string& dir, const Manifest& m) {
  std::vector<std::unique_ptr<ShardReader>> shards;
  const int n = static_cast<int>(m.shards.size());
  for (int i = 0; i < n; ++i) {
    const ManifestShard& e = m.shards[i];
    const std::string path = Join(dir, e.file);
    const int64_t bytes = FileSize(path);
    if (bytes < 0) {
      return errors::NotFound("checkpoint of step ", m.step, ": shard file '", path, "' is missing");
    }
    if (bytes != e.bytes) {
      return errors::DataLoss("checkpoint shard file '", path, "' is ", bytes, " bytes; the manifest says ",
                              e.bytes, (bytes < e.bytes ? " (truncated)" : ""));
    }
    if (e.metadata_checksum) {
      TACT_ASSIGN_OR_RETURN(const uint64_t actual, ExtentsChecksum(path, e.metadata_extents));
      if (actual != *e.metadata_checksum) {
        return errors::DataLoss("checkpoint shard file '", path, "' is damaged: its HDF5 metadata hashes to ",
                                ChecksumHex(actual), ", the manifest says ",
                                ChecksumHex(*e.metadata_checksum),
                                " (not opened: HDF5 can crash on damaged metadata)");
      }
    }
    TACT_ASSIGN_OR_RETURN(std::unique_ptr<ShardReader> r, ShardReader::Open(path));
    const checkpoint_internal::ShardIndex& index = r->index();
    if (index.step != m.step || index.shard != i || index.num_shards != n) {
      return errors::DataLoss("checkpoint shard file '", path, "' says it is shard ", index.shard, " of ",
                              index.num_shards, " of step ", index.step);
    }
    const uint64_t checksum = checkpoint_internal::ShardIndexChecksum(index);
    if (checksum != e.checksum) {
      return errors::DataLoss("checkpoint shard file '", path, "': its variables (names, dtypes, shapes, ",
                              "checksums) do not match the manifest's checksum ", ChecksumHex(e.checksum));
    }
    shards.push_back(std::move(r));
  }
  return shards;
}

// Every variable of every shard, by name. InvalidArgument if a name is in two.
StatusOr<std::map<std::string, StoredVariable>> VariablesByName(
    const std::vector<std::unique_ptr<ShardReader>>& shards) {
  std::map<std::string, StoredVariable> out;
  for (const auto& s : shards) {
    for (const StoredVariable& v : s->index().variables) {
      auto [it, inserted] = out.emplace(v.name, v);
      if (!inserted) {
        return errors::InvalidArgument("variable '", v.name, "' is in two checkpoint files: '",
                                       shards[it->second.shard]->path(), "' and '", s->path(), "'");
      }
    }
  }
  return out;
}

std::string Describe(const StoredVariable& v) { return DataTypeString(v.dtype) + " " + v.shape.DebugString(); }

// The step a checkpoint file or a temporary one belongs to, if any.
std::optional<int64_t> StepOfFile(const std::string& name) {
  std::string base = name;
  if (checkpoint_internal::IsTempName(name)) base = name.substr(1, name.find(".tmp-") - 1);
  auto parsed = checkpoint_internal::ParseCheckpointFileName(base);
  if (!parsed) return std::nullopt;
  return parsed->step;
}

}  // namespace

Status WriteCheckpointShard(const std::string& dir, int64_t step, int shard, int num_shards,
                            const std::vector<std::pair<std::string, Tensor>>& variables) {
  checkpoint_internal::QuietHdf5();
  if (step < 0 || num_shards < 1 || shard < 0 || shard >= num_shards) {
    return errors::InvalidArgument("checkpoint shard ", shard, " of ", num_shards, " of step ", step,
                                   ": need step >= 0 and 0 <= shard < num_shards");
  }
  const std::string manifest = Join(dir, checkpoint_internal::ManifestFileName(step));
  if (FileSize(manifest) >= 0) {
    return errors::AlreadyExists("checkpoint of step ", step, " is already committed ('", manifest, "')");
  }
  const std::string name = checkpoint_internal::ShardFileName(step, shard, num_shards);
  const std::string tmp = checkpoint_internal::TempPathFor(dir, name);
  Status s = checkpoint_internal::WriteShardFile(tmp, step, shard, num_shards, WallTimeNow(), variables);
  if (!s.ok()) {
    std::remove(tmp.c_str());
    return s;
  }
  return checkpoint_internal::CommitTempFile(tmp, dir, name);
}

Status CommitCheckpoint(const std::string& dir, int64_t step, int num_shards) {
  checkpoint_internal::QuietHdf5();
  if (num_shards < 1) return errors::InvalidArgument("a checkpoint has at least one shard, not ", num_shards);
  Manifest m;
  m.step = step;
  for (int i = 0; i < num_shards; ++i) {
    ManifestShard e;
    e.file = checkpoint_internal::ShardFileName(step, i, num_shards);
    e.bytes = FileSize(Join(dir, e.file));
    if (e.bytes < 0) {
      return errors::NotFound("cannot commit checkpoint of step ", step, ": shard file '", Join(dir, e.file),
                              "' does not exist");
    }
    m.shards.push_back(e);
  }
  // Checks each shard as a reader will, but against itself: its size,
  // metadata checksum and index checksum are taken from it.
  for (ManifestShard& e : m.shards) {
    const std::string path = Join(dir, e.file);
    TACT_ASSIGN_OR_RETURN(std::unique_ptr<ShardReader> r, ShardReader::Open(path));
    TACT_ASSIGN_OR_RETURN(const std::vector<ByteExtent> data, r->PlainDataExtents());
    e.metadata_extents = Outside(e.bytes, data);
    TACT_ASSIGN_OR_RETURN(e.metadata_checksum, ExtentsChecksum(path, e.metadata_extents));
    e.checksum = checkpoint_internal::ShardIndexChecksum(r->index());
    e.variables = static_cast<int64_t>(r->index().variables.size());
  }
  TACT_ASSIGN_OR_RETURN(auto shards, OpenShards(dir, m));
  TACT_RETURN_IF_ERROR(VariablesByName(shards).status());
  m.wall_time = WallTimeNow();
  return checkpoint_internal::WriteFileAtomically(dir, checkpoint_internal::ManifestFileName(step),
                                                  checkpoint_internal::SerializeManifest(m));
}

StatusOr<std::vector<int64_t>> ListCheckpoints(const std::string& dir) {
  TACT_ASSIGN_OR_RETURN(std::vector<std::string> names, ListDirectory(dir));
  std::vector<int64_t> steps;
  for (const std::string& name : names) {
    auto parsed = checkpoint_internal::ParseCheckpointFileName(name);
    if (parsed && parsed->manifest) steps.push_back(parsed->step);
  }
  std::sort(steps.begin(), steps.end());
  return steps;
}

StatusOr<CheckpointInfo> DescribeCheckpoint(const std::string& dir, int64_t step) {
  checkpoint_internal::QuietHdf5();
  TACT_ASSIGN_OR_RETURN(Manifest m, LoadManifest(dir, step));
  TACT_ASSIGN_OR_RETURN(auto shards, OpenShards(dir, m));
  TACT_ASSIGN_OR_RETURN(auto by_name, VariablesByName(shards));
  CheckpointInfo info;
  info.step = m.step;
  info.wall_time = m.wall_time;
  for (const ManifestShard& e : m.shards) info.shards.push_back({e.file, e.bytes, e.checksum});
  for (auto& [name, v] : by_name) info.variables.push_back(v);
  return info;
}

Status VerifyCheckpoint(const std::string& dir, int64_t step) {
  checkpoint_internal::QuietHdf5();
  TACT_ASSIGN_OR_RETURN(Manifest m, LoadManifest(dir, step));
  TACT_ASSIGN_OR_RETURN(auto shards, OpenShards(dir, m));
  TACT_RETURN_IF_ERROR(VariablesByName(shards).status());
  for (const auto& s : shards) {
    for (const StoredVariable& v : s->index().variables) TACT_RETURN_IF_ERROR(s->Read(v).status());
  }
  return Status::OK();
}

StatusOr<Checkpoint> ReadCheckpoint(const std::string& dir, int64_t step,
                                    const std::vector<VariableSpec>& expected, bool allow_other_variables) {
  checkpoint_internal::QuietHdf5();
  TACT_ASSIGN_OR_RETURN(Manifest m, LoadManifest(dir, step));
  TACT_ASSIGN_OR_RETURN(auto shards, OpenShards(dir, m));
  TACT_ASSIGN_OR_RETURN(auto by_name, VariablesByName(shards));
  // Every mismatch is found before any data is read: a wrong checkpoint costs
  // only its indexes.
  std::set<std::string> wanted;
  for (const VariableSpec& e : expected) {
    wanted.insert(e.name);
    auto it = by_name.find(e.name);
    if (it == by_name.end()) {
      return errors::InvalidArgument("checkpoint of step ", step, " in '", dir, "' has no variable '", e.name,
                                     "' (", DataTypeString(e.dtype), " ", e.shape.DebugString(), ")");
    }
    const StoredVariable& v = it->second;
    if (v.dtype != e.dtype || v.shape != e.shape) {
      return errors::InvalidArgument("variable '", e.name, "' in checkpoint file '", shards[v.shard]->path(),
                                     "' is ", Describe(v), "; the graph's is ", DataTypeString(e.dtype), " ",
                                     e.shape.DebugString());
    }
  }
  if (!allow_other_variables) {
    for (const auto& [name, v] : by_name) {
      if (!wanted.count(name)) {
        return errors::InvalidArgument("checkpoint file '", shards[v.shard]->path(), "' holds variable '", name,
                                       "' (", Describe(v), "), which the graph does not have");
      }
    }
  }
  Checkpoint c;
  c.step = m.step;
  c.wall_time = m.wall_time;
  for (const VariableSpec& e : expected) {
    const StoredVariable& v = by_name.at(e.name);
    TACT_ASSIGN_OR_RETURN(Tensor t, shards[v.shard]->Read(v));
    c.variables.emplace_back(e.name, std::move(t));
  }
  return c;
}

StatusOr<Checkpoint> ReadLatestGoodCheckpoint(const std::string& dir, const std::vector<VariableSpec>& expected,
                                              bool allow_other_variables) {
  TACT_ASSIGN_OR_RETURN(std::vector<int64_t> steps, ListCheckpoints(dir));
  if (steps.empty()) return errors::NotFound("no checkpoint in '", dir, "'");
  std::vector<Status> refused;
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    StatusOr<Checkpoint> c = ReadCheckpoint(dir, *it, expected, allow_other_variables);
    if (c.ok()) {
      c->refused = std::move(refused);
      return c;
    }
    // Intact but not of this graph: the directory is someone else's, and an
    // older checkpoint is no better a guess.
    if (c.status().code() == Code::kInvalidArgument) {
      std::string newer;
      for (const Status& s : refused) newer += "\n  newer, damaged: " + s.ToString();
      return errors::InvalidArgument("the checkpoints in '", dir, "' are not of this graph: ",
                                     c.status().message(), newer);
    }
    refused.push_back(c.status());
  }
  std::string reasons;
  for (const Status& s : refused) reasons += "\n  " + s.ToString();
  return errors::NotFound("no good checkpoint in '", dir, "' (", steps.size(), " refused):", reasons);
}

StatusOr<int64_t> LatestGoodCheckpoint(const std::string& dir, const std::vector<VariableSpec>& expected) {
  TACT_ASSIGN_OR_RETURN(Checkpoint c, ReadLatestGoodCheckpoint(dir, expected));
  return c.step;
}

Status PruneCheckpoints(const std::string& dir, int keep) {
  if (keep < 1) return errors::InvalidArgument("PruneCheckpoints must keep at least one checkpoint, not ", keep);
  TACT_ASSIGN_OR_RETURN(std::vector<int64_t> steps, ListCheckpoints(dir));
  if (steps.empty()) return Status::OK();  // leftovers may be a first checkpoint being written
  const size_t drop = steps.size() > static_cast<size_t>(keep) ? steps.size() - keep : 0;
  const int64_t oldest_kept = steps[drop];
  auto remove = [&dir](const std::string& name) -> Status {
    std::error_code ec;
    std::filesystem::remove(Join(dir, name), ec);
    if (ec) return errors::Internal("cannot remove '", Join(dir, name), "': ", ec.message());
    return Status::OK();
  };
  // Manifests first, made durable, so that a crash in the middle never
  // leaves a manifest whose shards are gone.
  for (size_t i = 0; i < drop; ++i) TACT_RETURN_IF_ERROR(remove(checkpoint_internal::ManifestFileName(steps[i])));
  if (drop > 0) TACT_RETURN_IF_ERROR(checkpoint_internal::FsyncDirectory(dir));
  TACT_ASSIGN_OR_RETURN(std::vector<std::string> names, ListDirectory(dir));
  bool removed = false;
  for (const std::string& name : names) {
    std::optional<int64_t> step = StepOfFile(name);
    if (step && *step < oldest_kept) {
      TACT_RETURN_IF_ERROR(remove(name));
      removed = true;
    }
  }
  return removed ? checkpoint_internal::FsyncDirectory(dir) : Status::OK();
}

}  // namespace tact

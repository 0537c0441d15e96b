// The file-system steps that make a checkpoint file appear whole or not at
// all: write under a temporary name, fsync the file, rename it to its final
// name, fsync the directory. A crash at any point leaves either no file under
// the final name or the complete one; only a temporary file may be left
// behind, and its name never parses as a checkpoint file.
//
// Blocking calls (fsync may take tens of milliseconds): never on a CAF thread.
#pragma once

#include <string>

#include "graph/status.h"

namespace tact::checkpoint_internal {

// "<dir>/.<name>.tmp-<pid>-<n>": hidden, unique within this process and
// among processes sharing the directory.
std::string TempPathFor(const std::string& dir, const std::string& name);

// True for names that TempPathFor makes (any pid).
bool IsTempName(const std::string& name);

// Flushes the file's data and metadata to the disk. Internal naming the file.
Status FsyncFile(const std::string& path);
Status FsyncDirectory(const std::string& dir);

// fsyncs `tmp_path`, renames it to `dir/name` (replacing a file of that name
// atomically) and fsyncs `dir`. On error `tmp_path` is removed.
Status CommitTempFile(const std::string& tmp_path, const std::string& dir, const std::string& name);

// Writes `bytes` to a temporary file and commits it as `dir/name`.
Status WriteFileAtomically(const std::string& dir, const std::string& name, const std::string& bytes);

// The whole file, or NotFound / DataLoss naming it.
StatusOr<std::string> ReadWholeFile(const std::string& path);

}  // namespace tact::checkpoint_internal

#include "apps/train/run_container.h"

#include <unistd.h>

#include <filesystem>
#include <random>

#include "graph/hex.h"
#include "graph/ops/state_ops.h"
#include "graph/stable_hash.h"

namespace tact::apps {

std::string RunContainer(const std::string& checkpoint_dir) {
  if (!checkpoint_dir.empty()) {
    std::error_code ec;
    std::filesystem::path dir = std::filesystem::weakly_canonical(checkpoint_dir, ec);
    if (ec) dir = std::filesystem::absolute(checkpoint_dir, ec);
    return "tact_train/ckpt_" + HexEncode(StableHash(dir.string()));
  }
  std::random_device random;
  const uint64_t id = (uint64_t{random()} << 32) ^ random() ^ static_cast<uint64_t>(getpid());
  return "tact_train/run_" + HexEncode(id);
}

Status ReleaseRunContainer(Session& session, const ClusterSpec& cluster, const std::string& container) {
  Scope root = Scope::NewRootScope();
  std::vector<std::string> targets;
  int i = 0;
  for (const std::string& task : cluster.Tasks()) {
    const std::string name = "release_run_container/" + std::to_string(i++);
    ResetContainer(root.WithOpName(name).WithDevice(task + "/device:CPU:0"), container);
    targets.push_back(name);
  }
  TACT_ASSIGN_OR_RETURN(GraphDef def, root.ToGraphDef());
  TACT_RETURN_IF_ERROR(session.Extend(def));
  return session.Run({}, {}, targets).status();
}

}  // namespace tact::apps

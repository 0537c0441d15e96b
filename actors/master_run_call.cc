#include "actors/master_run_call.h"

#include <algorithm>

namespace tact {

std::string Normalized(const std::string& tensor_name) {
  return ParseTensorId(tensor_name)->ToString();  // BuildSubgraph checked it
}

std::string SignatureKey(const RunCall& call) {
  std::vector<std::string> feeds;
  for (const auto& [name, t] : call.feeds) feeds.push_back(name);
  std::sort(feeds.begin(), feeds.end());
  std::vector<std::string> targets = call.targets;
  std::sort(targets.begin(), targets.end());
  std::string key;
  for (const auto& f : feeds) key += f + ",";
  key += "|";
  for (const auto& f : call.fetches) key += f + ",";  // order matters: it is the result's order
  key += "|";
  for (const auto& t : targets) key += t + ",";
  return key;
}

Status CheckFeeds(const Graph& graph, const RunCall& call, const Signature& sig) {
  for (size_t i = 0; i < call.feeds.size(); ++i) {
    const auto& [name, t] = call.feeds[i];
    DataType want = DT_INVALID;
    for (const auto& [n, type] : sig.feed_types) {
      if (n == name) want = type;
    }
    if (t.dtype() != want) {
      return errors::InvalidArgument("feed '", name, "' is ", DataTypeString(t.dtype()),
                                     " but the graph expects ", DataTypeString(want));
    }
    const Node* node = graph.FindNode(ParseTensorId(name)->node);
    PartialTensorShape declared;
    if (node->op() == "Placeholder" && GetAttr(node->attrs(), "shape", &declared).ok() &&
        !declared.IsCompatibleWith(t.shape())) {
      return errors::InvalidArgument("feed '", name, "' has shape ", t.shape().DebugString(),
                                     " but placeholder '", node->name(), "' has shape ",
                                     declared.DebugString());
    }
  }
  return Status::OK();
}

StatusOr<std::vector<Tensor>> Answer(const RunCall& call, const std::map<std::string, Tensor>& fetched) {
  std::vector<Tensor> out;
  for (const std::string& f : call.fetches) {
    auto t = fetched.find(Normalized(f));
    if (t == fetched.end()) return errors::Internal("no partition returned fetch '", f, "'");
    out.push_back(t->second);  // the reference, not the bytes
  }
  return out;
}

}  // namespace tact

#include "placement/const_copies.h"

namespace tact {

bool CopiedToReaders(const Node& node, int64_t max_bytes) {
  if (node.op() != "Const" || !node.in_edges().empty()) return false;
  auto value = node.attrs().find("value");
  return value != node.attrs().end() && value->second.kind() == AttrValue::Kind::kTensor &&
         static_cast<int64_t>(value->second.tensor().TotalBytes()) <= max_bytes;
}

}  // namespace tact

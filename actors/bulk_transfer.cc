#include "actors/bulk_transfer.h"

#include <cstring>

#include "actors/tensor_link.h"

namespace tact {

bool TravelsByLink(const Tensor& t) {
  return t.IsInitialized() && TensorLinks::Carries(t.dtype()) && t.TotalBytes() >= kBulkTensorBytes;
}

// ';' separates a rendezvous key's fields; no node or attr name has one.
std::string LinkedAttrKey(const std::string& node, const std::string& attr) {
  return "attr;" + node + ";" + attr;
}

std::vector<std::pair<std::string, Tensor>> TakeLinkedAttrs(GraphDef* graph) {
  std::vector<std::pair<std::string, Tensor>> taken;
  for (NodeDef& n : graph->nodes) {
    for (auto& [name, value] : n.attrs) {
      if (value.kind() != AttrValue::Kind::kTensor || !TravelsByLink(value.tensor())) continue;
      taken.emplace_back(LinkedAttrKey(n.name, name), value.tensor());
      Tensor placeholder(value.tensor().dtype(), TensorShape({}));
      std::memset(placeholder.raw_data(), 0, placeholder.TotalBytes());
      value = AttrValue::FromTensor(std::move(placeholder));
    }
  }
  return taken;
}

Status PutLinkedAttr(GraphDef* graph, const std::string& key, const Tensor& value) {
  for (NodeDef& n : graph->nodes) {
    for (auto& [name, attr] : n.attrs) {
      if (LinkedAttrKey(n.name, name) != key) continue;
      if (attr.kind() != AttrValue::Kind::kTensor || attr.tensor().dtype() != value.dtype()) {
        return errors::InvalidArgument("linked attr '", key, "' arrived as ",
                                       DataTypeString(value.dtype()),
                                       ", which its placeholder in the graph is not");
      }
      attr = AttrValue::FromTensor(value);
      return Status::OK();
    }
  }
  return errors::InvalidArgument("linked attr '", key, "' names no tensor attr of the graph");
}

}  // namespace tact

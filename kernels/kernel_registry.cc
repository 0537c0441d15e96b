#include "kernels/kernel_registry.h"

#include <algorithm>

namespace tact {

std::string KernelDef::DebugString() const {
  std::string s = device_type;
  if (type_constraints.empty()) return s;
  s += " [";
  bool first = true;
  for (const auto& [attr, types] : type_constraints) {
    if (!first) s += "; ";
    first = false;
    s += attr + " in {";
    for (size_t i = 0; i < types.size(); ++i) s += (i ? ", " : "") + DataTypeString(types[i]);
    s += "}";
  }
  return s + "]";
}

KernelRegistry* KernelRegistry::Global() {
  static KernelRegistry* const kRegistry = new KernelRegistry();
  return kRegistry;
}

void KernelRegistry::Register(KernelDef def, KernelFactory factory) {
  std::string op = def.op;
  kernels_.emplace(std::move(op), Entry{std::move(def), std::move(factory)});
}

namespace {
bool Matches(const KernelDef& def, const AttrMap& attrs) {
  for (const auto& [attr, allowed] : def.type_constraints) {
    auto it = attrs.find(attr);
    if (it == attrs.end()) return false;
    const AttrValue& v = it->second;
    auto ok = [&](DataType t) {
      for (DataType a : allowed) {
        if (a == t) return true;
      }
      return false;
    };
    if (v.kind() == AttrValue::Kind::kType) {
      if (!ok(v.type())) return false;
    } else if (v.kind() == AttrValue::Kind::kTypeList) {
      for (DataType t : v.list_type()) {
        if (!ok(t)) return false;
      }
    } else {
      return false;
    }
  }
  return true;
}
}  // namespace

const KernelRegistry::Entry* KernelRegistry::FindEntry(const std::string& device_type,
                                                      const NodeProperties& node) const {
  auto [begin, end] = kernels_.equal_range(node.def.op);
  for (auto it = begin; it != end; ++it) {
    if (it->second.def.device_type == device_type && Matches(it->second.def, node.def.attrs)) {
      return &it->second;
    }
  }
  return nullptr;
}

StatusOr<const KernelDef*> KernelRegistry::Find(const std::string& device_type,
                                                const NodeProperties& node) const {
  if (const Entry* e = FindEntry(device_type, node)) return &e->def;
  std::string selecting;
  for (const auto& [name, value] : node.def.attrs) {
    if (value.kind() == AttrValue::Kind::kType || value.kind() == AttrValue::Kind::kTypeList) {
      selecting += (selecting.empty() ? "" : ", ") + name + "=" + value.DebugString();
    }
  }
  std::string registered;
  for (const KernelDef* k : KernelsFor(node.def.op)) {
    registered += "\n  " + k->DebugString();
  }
  return errors::NotFound(node.ErrorPrefix(), "no kernel registered for device ", device_type,
                          selecting.empty() ? "" : " with " + selecting,
                          registered.empty() ? "; the op has no kernels at all"
                                             : "; registered kernels:" + registered);
}

std::vector<std::string> KernelRegistry::SupportedDeviceTypes(const NodeProperties& node) const {
  std::vector<std::string> types;
  auto [begin, end] = kernels_.equal_range(node.def.op);
  for (auto it = begin; it != end; ++it) {
    const std::string& t = it->second.def.device_type;
    if (Matches(it->second.def, node.def.attrs) &&
        std::find(types.begin(), types.end(), t) == types.end()) {
      types.push_back(t);
    }
  }
  return types;
}

std::vector<const KernelDef*> KernelRegistry::KernelsFor(const std::string& op) const {
  std::vector<const KernelDef*> out;
  auto [begin, end] = kernels_.equal_range(op);
  for (auto it = begin; it != end; ++it) out.push_back(&it->second.def);
  return out;
}

StatusOr<std::unique_ptr<OpKernel>> CreateOpKernel(Device* device,
                                                   std::shared_ptr<const NodeProperties> node) {
  const KernelRegistry* reg = KernelRegistry::Global();
  const KernelRegistry::Entry* entry = reg->FindEntry(device->device_type(), *node);
  if (entry == nullptr) return reg->Find(device->device_type(), *node).status();
  OpKernelConstruction ctx(device, std::move(node));
  std::unique_ptr<OpKernel> kernel(entry->factory(&ctx));
  if (!ctx.status().ok()) return ctx.status();
  return kernel;
}

}  // namespace tact

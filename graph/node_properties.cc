#include "graph/node_properties.h"

#include "graph/op_registry.h"
#include "graph/printable.h"

namespace tact {

std::string NodeErrorPrefix(const std::string& node, const std::string& op) {
  return "node '" + Printable(node) + "' (op '" + Printable(op) + "'): ";
}

std::string NodeProperties::ErrorPrefix() const {
  // The _Send and _Recv a session adds for a fetch or a feed
  // (graph/subgraph.cc) are named by the tensor the client gave, not by
  // the node's made-up name.
  auto client = def.attrs.find("client_terminated");
  auto tensor = def.attrs.find("tensor_name");
  if ((def.op == "_Send" || def.op == "_Recv") && client != def.attrs.end() &&
      client->second.kind() == AttrValue::Kind::kBool && client->second.b() && tensor != def.attrs.end() &&
      tensor->second.kind() == AttrValue::Kind::kString) {
    return (def.op == "_Send" ? "fetch '" : "feed '") + Printable(tensor->second.s()) + "': ";
  }
  return NodeErrorPrefix(def.name, def.op);
}

void AddDefaultAttrs(const OpDef& op, AttrMap* attrs) {
  for (const OpDef::AttrDef& a : op.attrs) {
    if (a.default_value && attrs->find(a.name) == attrs->end()) (*attrs)[a.name] = *a.default_value;
  }
}

namespace {

bool IsAllowed(const OpDef::AttrDef& def, const AttrValue& v) {
  if (def.allowed_values.empty()) return true;
  auto allowed = [&](const AttrValue& item) {
    for (const AttrValue& a : def.allowed_values) {
      if (a == item) return true;
    }
    return false;
  };
  if (v.kind() == AttrValue::Kind::kTypeList) {
    for (DataType t : v.list_type()) {
      if (!allowed(AttrValue::Type(t))) return false;
    }
    return true;
  }
  return allowed(v);
}

std::string AllowedString(const OpDef::AttrDef& def) {
  std::string s = "{";
  for (size_t i = 0; i < def.allowed_values.size(); ++i) {
    if (i) s += ", ";
    s += def.allowed_values[i].DebugString();
  }
  return s + "}";
}

}  // namespace

Status ValidateAttrs(const OpDef& op, const AttrMap& attrs) {
  for (const OpDef::AttrDef& def : op.attrs) {
    auto it = attrs.find(def.name);
    if (it == attrs.end()) return errors::InvalidArgument("missing attr '", def.name, "'");
    const AttrValue& v = it->second;
    // An attr declared "{float, double}" is a type attr; "{'SAME','VALID'}" a string.
    if (v.kind() != def.kind) {
      return errors::InvalidArgument("attr '", def.name, "' is ", AttrKindName(v.kind()),
                                     ", expected ", AttrKindName(def.kind));
    }
    if (!IsAllowed(def, v)) {
      return errors::InvalidArgument("attr '", def.name, "' = ", v.DebugString(),
                                     " is not in the allowed set ", AllowedString(def));
    }
    if (def.minimum) {
      const int64_t n = v.is_list() ? static_cast<int64_t>(v.list_size()) : v.i();
      if (n < *def.minimum) {
        return errors::InvalidArgument("attr '", def.name, "' = ", v.DebugString(),
                                       " is below its minimum ", *def.minimum);
      }
    }
  }
  for (const auto& [name, value] : attrs) {
    // Names starting with '_' are the runtime's own (colocation "_class",
    // placement hints): every op carries them without declaring them.
    if (name[0] != '_' && op.FindAttr(name) == nullptr) {
      return errors::InvalidArgument("attr '", Printable(name), "' is not an attr of op '", op.name, "'");
    }
  }
  return Status::OK();
}

namespace {

// The most tensors one list arg may hold. A number attr sets how many
// outputs a node has (Split's num_split, Unpack's num): a graph file that
// asked for 2^40 of them made the process allocate until it was killed.
// No real graph comes near this many; a port is also an int.
constexpr int64_t kMaxListArgLength = int64_t{1} << 20;

// The dtypes of one arg (several for a list).
Status ArgTypes(const OpDef::ArgDef& arg, const AttrMap& attrs, std::vector<DataType>* out) {
  if (!arg.type_list_attr.empty()) {
    std::vector<DataType> types;
    TACT_RETURN_IF_ERROR(GetAttr(attrs, arg.type_list_attr, &types));
    for (DataType t : types) out->push_back(arg.is_ref ? MakeRefType(t) : t);
    return Status::OK();
  }
  DataType t = arg.type;
  if (!arg.type_attr.empty()) TACT_RETURN_IF_ERROR(GetAttr(attrs, arg.type_attr, &t));
  if (arg.is_ref) t = MakeRefType(t);
  int64_t n = 1;
  if (!arg.number_attr.empty()) {
    TACT_RETURN_IF_ERROR(GetAttr(attrs, arg.number_attr, &n));
    if (n < 0) return errors::InvalidArgument("attr '", arg.number_attr, "' is negative");
    if (n > kMaxListArgLength) {
      return errors::InvalidArgument("attr '", arg.number_attr, "' = ", n, " asks for more than ",
                                     kMaxListArgLength, " tensors in ", arg.name);
    }
  }
  for (int64_t i = 0; i < n; ++i) out->push_back(t);
  return Status::OK();
}

}  // namespace

Status InOutTypes(const OpDef& op, const AttrMap& attrs, std::vector<DataType>* inputs,
                  std::vector<DataType>* outputs) {
  inputs->clear();
  outputs->clear();
  for (const OpDef::ArgDef& arg : op.inputs) TACT_RETURN_IF_ERROR(ArgTypes(arg, attrs, inputs));
  for (const OpDef::ArgDef& arg : op.outputs) TACT_RETURN_IF_ERROR(ArgTypes(arg, attrs, outputs));
  return Status::OK();
}

Status ArgPorts(const std::vector<OpDef::ArgDef>& args, const AttrMap& attrs, int arg_index,
                int* first, int* count) {
  int port = 0;
  for (int i = 0; i < static_cast<int>(args.size()); ++i) {
    std::vector<DataType> types;
    TACT_RETURN_IF_ERROR(ArgTypes(args[i], attrs, &types));
    if (i == arg_index) {
      *first = port;
      *count = static_cast<int>(types.size());
      return Status::OK();
    }
    port += static_cast<int>(types.size());
  }
  return errors::InvalidArgument("no arg ", arg_index);
}

Status InferAttrsFromInputs(const OpDef& op, const std::vector<std::vector<DataType>>& arg_types,
                            AttrMap* attrs) {
  if (arg_types.size() != op.inputs.size()) {
    return errors::InvalidArgument("takes ", op.inputs.size(), " inputs, given ", arg_types.size());
  }
  for (size_t i = 0; i < arg_types.size(); ++i) {
    const OpDef::ArgDef& ad = op.inputs[i];
    const std::vector<DataType>& types = arg_types[i];
    if (!ad.is_list() && types.size() != 1) {
      return errors::InvalidArgument("input '", ad.name, "' takes one tensor, given ", types.size());
    }
    if (!ad.number_attr.empty() && !attrs->count(ad.number_attr)) {
      (*attrs)[ad.number_attr] = AttrValue::Int(static_cast<int64_t>(types.size()));
    }
    if (!ad.type_attr.empty() && !attrs->count(ad.type_attr) && !types.empty()) {
      (*attrs)[ad.type_attr] = AttrValue::Type(BaseType(types[0]));
    }
    if (!ad.type_list_attr.empty() && !attrs->count(ad.type_list_attr)) {
      std::vector<DataType> base;
      for (DataType t : types) base.push_back(BaseType(t));
      (*attrs)[ad.type_list_attr] = AttrValue::TypeList(base);
    }
  }
  return Status::OK();
}

StatusOr<std::shared_ptr<const NodeProperties>> NodeProperties::Create(NodeDef def) {
  // Built only for an error: every node of every graph passes here.
  auto prefix = [&def] { return NodeErrorPrefix(def.name, def.op); };
  if (def.name.empty()) {
    return errors::InvalidArgument("a node of op '", Printable(def.op), "' has no name");
  }
  // TensorFlow allows only [A-Za-z0-9.][A-Za-z0-9_./>-]*; tact allows any
  // text (variables named in other scripts checkpoint too), but not bytes
  // that would garble every message that names the node.
  if (!IsPrintableText(def.name)) {
    return errors::InvalidArgument(prefix(), "a node's name must be UTF-8 text without control characters");
  }
  StatusOr<const OpDef*> op = OpRegistry::Global()->LookUp(def.op);
  if (!op.ok()) return op.status().WithPrefix(prefix());
  auto props = std::make_shared<NodeProperties>();
  props->op_def = *op;
  AddDefaultAttrs(**op, &def.attrs);
  Status s = ValidateAttrs(**op, def.attrs);
  if (s.ok()) s = InOutTypes(**op, def.attrs, &props->input_types, &props->output_types);
  if (!s.ok()) return s.WithPrefix(prefix());
  props->def = std::move(def);
  return std::shared_ptr<const NodeProperties>(std::move(props));
}

}  // namespace tact

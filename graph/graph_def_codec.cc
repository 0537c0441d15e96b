#include "graph/graph_def_codec.h"
#include "graph/graph_def_proto.h"

#include <capnp/message.h>
#include <kj/exception.h>

#include "graph/tensor_codec.h"
#include "schemas/graph.capnp.h"

namespace tact {
namespace {

using schema::AttrValue;  // the wire struct; tact::AttrValue is spelled in full
using ListValue = schema::ListValue;

Status CheckType(int32_t raw) {
  const DataType t = static_cast<DataType>(raw);
  if (raw <= 0 || !IsValidDataType(t)) return errors::InvalidArgument("unknown dtype ", raw);
  return Status::OK();
}

template <typename T, typename ListBuilder>
void FillList(const std::vector<T>& v, ListBuilder list) {
  for (size_t i = 0; i < v.size(); ++i) list.set(static_cast<unsigned>(i), v[i]);
}

Status WriteList(const tact::AttrValue& v, ListValue::Builder out) {
  using K = tact::AttrValue::Kind;
  switch (v.kind()) {
    case K::kIntList: FillList(v.list_i(), out.initI(v.list_size())); break;
    case K::kFloatList: FillList(v.list_f(), out.initF(v.list_size())); break;
    case K::kBoolList: {
      auto list = out.initB(v.list_size());
      for (size_t i = 0; i < v.list_b().size(); ++i) list.set(i, v.list_b()[i]);
      break;
    }
    case K::kStringList: {
      auto list = out.initS(v.list_size());
      for (size_t i = 0; i < v.list_s().size(); ++i) {
        const std::string& s = v.list_s()[i];
        list.set(i, capnp::Data::Reader(reinterpret_cast<const kj::byte*>(s.data()), s.size()));
      }
      break;
    }
    case K::kTypeList: {
      auto list = out.initType(v.list_size());
      for (size_t i = 0; i < v.list_type().size(); ++i) {
        TACT_RETURN_IF_ERROR(CheckType(v.list_type()[i]));
        list.set(i, v.list_type()[i]);
      }
      break;
    }
    case K::kShapeList: {
      auto list = out.initShape(v.list_size());
      for (size_t i = 0; i < v.list_shape().size(); ++i) ShapeToProto(v.list_shape()[i], list[i]);
      break;
    }
    case K::kTensorList: {
      auto list = out.initTensor(v.list_size());
      for (size_t i = 0; i < v.list_tensor().size(); ++i) {
        Status s = TensorToProto(v.list_tensor()[i], list[i]);
        if (!s.ok()) return s.WithPrefix("element " + std::to_string(i) + ": ");
      }
      break;
    }
    default: return errors::Internal("not a list kind");
  }
  return Status::OK();
}

Status WriteAttr(const tact::AttrValue& v, AttrValue::Builder out) {
  using K = tact::AttrValue::Kind;
  switch (v.kind()) {
    case K::kNone: out.setNone(); break;
    case K::kInt: out.setI(v.i()); break;
    case K::kFloat: out.setF(v.f()); break;
    case K::kBool: out.setB(v.b()); break;
    case K::kString:
      out.setS(capnp::Data::Reader(reinterpret_cast<const kj::byte*>(v.s().data()), v.s().size()));
      break;
    case K::kType:
      TACT_RETURN_IF_ERROR(CheckType(v.type()));
      out.setType(v.type());
      break;
    case K::kShape: ShapeToProto(v.shape(), out.initShape()); break;
    case K::kTensor: return TensorToProto(v.tensor(), out.initTensor());
    default: return WriteList(v, out.initList());
  }
  return Status::OK();
}

Status WriteNode(const NodeDef& n, schema::NodeDef::Builder out) {
  out.setName(n.name);
  out.setOp(n.op);
  // Empty fields stay null pointers (read back as empty): most nodes have
  // no device and many no inputs.
  if (!n.inputs.empty()) {
    auto inputs = out.initInputs(static_cast<unsigned>(n.inputs.size()));
    for (size_t i = 0; i < n.inputs.size(); ++i) inputs.set(i, n.inputs[i]);
  }
  if (!n.device.empty()) out.setDevice(n.device);
  if (n.attrs.empty()) return Status::OK();
  auto attrs = out.initAttrs(static_cast<unsigned>(n.attrs.size()));
  unsigned i = 0;
  for (const auto& [name, value] : n.attrs) {  // the map keeps them sorted by name
    attrs[i].setName(name);
    Status s = WriteAttr(value, attrs[i].initValue());
    if (!s.ok()) return s.WithPrefix("node '" + n.name + "': attr '" + name + "': ");
    ++i;
  }
  return Status::OK();
}

// ---- reading ----

template <typename T, typename Reader>
std::vector<T> ReadScalars(Reader list) {
  std::vector<T> v;
  v.reserve(list.size());
  for (auto x : list) v.push_back(static_cast<T>(x));
  return v;
}

StatusOr<tact::AttrValue> ReadList(ListValue::Reader in) {
  switch (in.which()) {
    case ListValue::I: return tact::AttrValue::IntList(ReadScalars<int64_t>(in.getI()));
    case ListValue::F: return tact::AttrValue::FloatList(ReadScalars<float>(in.getF()));
    case ListValue::B: return tact::AttrValue::BoolList(ReadScalars<bool>(in.getB()));
    case ListValue::S: {
      std::vector<std::string> v;
      auto list = in.getS();
      v.reserve(list.size());
      for (capnp::Data::Reader s : list) v.emplace_back(reinterpret_cast<const char*>(s.begin()), s.size());
      return tact::AttrValue::StringList(std::move(v));
    }
    case ListValue::TYPE: {
      std::vector<DataType> v;
      auto list = in.getType();
      v.reserve(list.size());
      for (uint32_t i = 0; i < list.size(); ++i) {
        Status s = CheckType(list[i]);
        if (!s.ok()) return s.WithPrefix("element " + std::to_string(i) + ": ");
        v.push_back(static_cast<DataType>(list[i]));
      }
      return tact::AttrValue::TypeList(std::move(v));
    }
    case ListValue::SHAPE: {
      std::vector<PartialTensorShape> v;
      auto list = in.getShape();
      v.reserve(list.size());
      for (uint32_t i = 0; i < list.size(); ++i) {
        StatusOr<PartialTensorShape> s = ShapeFromProto(list[i]);
        if (!s.ok()) return s.status().WithPrefix("element " + std::to_string(i) + ": ");
        v.push_back(std::move(s).value());
      }
      return tact::AttrValue::ShapeList(std::move(v));
    }
    case ListValue::TENSOR: {
      std::vector<Tensor> v;
      auto list = in.getTensor();
      v.reserve(list.size());
      for (uint32_t i = 0; i < list.size(); ++i) {
        StatusOr<Tensor> t = TensorFromProto(list[i]);
        if (!t.ok()) return t.status().WithPrefix("element " + std::to_string(i) + ": ");
        v.push_back(std::move(t).value());
      }
      return tact::AttrValue::TensorList(std::move(v));
    }
  }
  // A discriminant this schema does not know: a newer writer, or corruption.
  return errors::InvalidArgument("unknown list kind ", static_cast<int>(in.which()));
}

StatusOr<tact::AttrValue> ReadAttr(AttrValue::Reader in) {
  switch (in.which()) {
    case AttrValue::NONE: return tact::AttrValue();
    case AttrValue::I: return tact::AttrValue::Int(in.getI());
    case AttrValue::F: return tact::AttrValue::Float(in.getF());
    case AttrValue::B: return tact::AttrValue::Bool(in.getB());
    case AttrValue::S: {
      capnp::Data::Reader s = in.getS();
      return tact::AttrValue::String(std::string(reinterpret_cast<const char*>(s.begin()), s.size()));
    }
    case AttrValue::TYPE:
      TACT_RETURN_IF_ERROR(CheckType(in.getType()));
      return tact::AttrValue::Type(static_cast<DataType>(in.getType()));
    case AttrValue::SHAPE: {
      TACT_ASSIGN_OR_RETURN(PartialTensorShape s, ShapeFromProto(in.getShape()));
      return tact::AttrValue::Shape(std::move(s));
    }
    case AttrValue::TENSOR: {
      TACT_ASSIGN_OR_RETURN(Tensor t, TensorFromProto(in.getTensor()));
      return tact::AttrValue::FromTensor(std::move(t));
    }
    case AttrValue::LIST: return ReadList(in.getList());
  }
  return errors::InvalidArgument("unknown attr value kind ", static_cast<int>(in.which()));
}

StatusOr<NodeDef> ReadNode(schema::NodeDef::Reader in, uint32_t index) {
  NodeDef n;
  // (begin, size), not cStr(): a Text may hold NUL bytes, kept as they are.
  auto text = [](capnp::Text::Reader t) { return std::string(t.begin(), t.size()); };
  n.name = text(in.getName());
  n.op = text(in.getOp());
  n.device = text(in.getDevice());
  const std::string where =
      "node " + std::to_string(index) + " ('" + n.name + "'): ";
  auto inputs = in.getInputs();
  n.inputs.reserve(inputs.size());
  for (capnp::Text::Reader s : inputs) n.inputs.push_back(text(s));
  for (schema::NodeDef::Attr::Reader a : in.getAttrs()) {
    const std::string name = text(a.getName());
    StatusOr<tact::AttrValue> v = ReadAttr(a.getValue());
    if (!v.ok()) return v.status().WithPrefix(where + "attr '" + name + "': ");
    if (!n.attrs.emplace(name, std::move(v).value()).second) {
      return errors::InvalidArgument(where, "attr '", name, "' appears twice");
    }
  }
  return n;
}

}  // namespace

Status GraphDefToProto(const GraphDef& def, schema::GraphDef::Builder out) {
  out.setVersion(def.version);
  auto nodes = out.initNodes(static_cast<unsigned>(def.nodes.size()));
  for (size_t i = 0; i < def.nodes.size(); ++i) {
    TACT_RETURN_IF_ERROR(WriteNode(def.nodes[i], nodes[i]));
  }
  return Status::OK();
}

// `message_words`: the size of the whole message. A list of zero-sized
// structs costs no bytes, so without this bound a small buffer could claim
// as many NodeDefs as the traversal limit allows; an honest NodeDef takes
// at least five words.
StatusOr<GraphDef> GraphDefFromProto(schema::GraphDef::Reader in, size_t message_words) {
  GraphDef def;
  def.version = in.getVersion();
  auto nodes = in.getNodes();
  if (nodes.size() > message_words) {
    return errors::DataLoss("GraphDef claims ", nodes.size(), " nodes in a message of ",
                            message_words, " words");
  }
  def.nodes.reserve(nodes.size());
  for (uint32_t i = 0; i < nodes.size(); ++i) {
    TACT_ASSIGN_OR_RETURN(NodeDef n, ReadNode(nodes[i], i));
    def.nodes.push_back(std::move(n));
  }
  return def;
}

StatusOr<std::string> SerializeGraphDef(const GraphDef& def) {
  // capnp throws for what its format cannot hold (a string or list over
  // 2^29 - 1 elements); no exception leaves this function.
  try {
    capnp::MallocMessageBuilder message;
    TACT_RETURN_IF_ERROR(GraphDefToProto(def, message.initRoot<schema::GraphDef>()));
    return MessageToBytes(message);
  } catch (const kj::Exception& e) {
    return errors::InvalidArgument("GraphDef cannot be serialised: ", e.getDescription().cStr());
  }
}

StatusOr<GraphDef> ParseGraphDef(std::string_view bytes) {
  GraphDef def;
  Status s = ReadCapnpMessage(bytes, "GraphDef", [&](capnp::MessageReader& r) -> Status {
    TACT_ASSIGN_OR_RETURN(def, GraphDefFromProto(r.getRoot<schema::GraphDef>(), bytes.size() / 8));
    return Status::OK();
  });
  if (!s.ok()) return s;
  return def;
}

}  // namespace tact

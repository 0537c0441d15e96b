#include "graph/attr_value.h"

#include <sstream>

namespace tact {

size_t AttrValue::list_size() const {
  return std::visit(
      [](const auto& v) -> size_t {
        using V = std::decay_t<decltype(v)>;
        if constexpr (requires { v.size(); } && !std::is_same_v<V, std::string>) {
          return v.size();
        } else {
          return 0;
        }
      },
      value_);
}

bool AttrValue::operator==(const AttrValue& other) const {
  if (kind() != other.kind()) return false;
  switch (kind()) {
    case Kind::kNone: return true;
    case Kind::kBool: return b() == other.b();
    case Kind::kTensor: return tensor().BitwiseEqual(other.tensor());
    case Kind::kTensorList: {
      if (list_tensor().size() != other.list_tensor().size()) return false;
      for (size_t i = 0; i < list_tensor().size(); ++i) {
        if (!list_tensor()[i].BitwiseEqual(other.list_tensor()[i])) return false;
      }
      return true;
    }
    default:
      return std::visit(
          [&](const auto& a) {
            using A = std::decay_t<decltype(a)>;
            if constexpr (std::is_same_v<A, Tensor> || std::is_same_v<A, std::vector<Tensor>> ||
                          std::is_same_v<A, Boolean>) {
              return false;  // handled above
            } else {
              return a == std::get<A>(other.value_);
            }
          },
          value_);
  }
}

namespace {
void Print(std::ostream& os, int64_t v) { os << v; }
void Print(std::ostream& os, float v) { os << v; }
void Print(std::ostream& os, bool v) { os << (v ? "true" : "false"); }
void Print(std::ostream& os, const std::string& v) { os << '"' << v << '"'; }
void Print(std::ostream& os, DataType v) { os << DataTypeString(v); }
void Print(std::ostream& os, const PartialTensorShape& v) { os << v.DebugString(); }
void Print(std::ostream& os, const Tensor& v) { os << "<" << v.DebugString(4) << ">"; }
template <typename T>
void PrintList(std::ostream& os, const std::vector<T>& v) {
  os << "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) os << ",";
    Print(os, static_cast<T>(v[i]));
  }
  os << "]";
}
}  // namespace

std::string AttrValue::DebugString() const {
  std::ostringstream os;
  switch (kind()) {
    case Kind::kNone: os << "<none>"; break;
    case Kind::kInt: Print(os, i()); break;
    case Kind::kFloat: Print(os, f()); break;
    case Kind::kBool: Print(os, b()); break;
    case Kind::kString: Print(os, s()); break;
    case Kind::kType: Print(os, type()); break;
    case Kind::kShape: Print(os, shape()); break;
    case Kind::kTensor: Print(os, tensor()); break;
    case Kind::kIntList: PrintList(os, list_i()); break;
    case Kind::kFloatList: PrintList(os, list_f()); break;
    case Kind::kBoolList: {
      std::vector<bool> v = list_b();
      os << "[";
      for (size_t k = 0; k < v.size(); ++k) os << (k ? "," : "") << (v[k] ? "true" : "false");
      os << "]";
      break;
    }
    case Kind::kStringList: PrintList(os, list_s()); break;
    case Kind::kTypeList: PrintList(os, list_type()); break;
    case Kind::kShapeList: PrintList(os, list_shape()); break;
    case Kind::kTensorList: PrintList(os, list_tensor()); break;
  }
  return os.str();
}

namespace {
constexpr const char* kKindNames[] = {
    "none", "int", "float", "bool", "string", "type", "shape", "tensor",
    "list(int)", "list(float)", "list(bool)", "list(string)", "list(type)", "list(shape)",
    "list(tensor)"};
}  // namespace

const char* AttrKindName(AttrValue::Kind kind) { return kKindNames[static_cast<int>(kind)]; }

StatusOr<AttrValue::Kind> AttrKindFromName(const std::string& name) {
  for (int k = 1; k < static_cast<int>(std::size(kKindNames)); ++k) {
    if (name == kKindNames[k]) return static_cast<AttrValue::Kind>(k);
  }
  return errors::InvalidArgument("unknown attr type '", name, "'");
}

namespace {
StatusOr<const AttrValue*> Find(const AttrMap& attrs, const std::string& name,
                                AttrValue::Kind kind) {
  auto it = attrs.find(name);
  if (it == attrs.end()) return errors::NotFound("no attr named '", name, "'");
  if (it->second.kind() != kind) {
    return errors::InvalidArgument("attr '", name, "' has type ", AttrKindName(it->second.kind()),
                                   ", expected ", AttrKindName(kind));
  }
  return &it->second;
}
}  // namespace

#define TACT_GET_ATTR(TYPE, KIND, EXPR)                                            \
  Status GetAttr(const AttrMap& attrs, const std::string& name, TYPE* out) {      \
    TACT_ASSIGN_OR_RETURN(const AttrValue* v, Find(attrs, name, AttrValue::Kind::KIND)); \
    EXPR;                                                                          \
    return Status::OK();                                                           \
  }
TACT_GET_ATTR(int64_t, kInt, *out = v->i())
TACT_GET_ATTR(int32_t, kInt, *out = static_cast<int32_t>(v->i()))
TACT_GET_ATTR(float, kFloat, *out = v->f())
TACT_GET_ATTR(bool, kBool, *out = v->b())
TACT_GET_ATTR(std::string, kString, *out = v->s())
TACT_GET_ATTR(DataType, kType, *out = v->type())
TACT_GET_ATTR(PartialTensorShape, kShape, *out = v->shape())
TACT_GET_ATTR(Tensor, kTensor, *out = v->tensor())
TACT_GET_ATTR(std::vector<int64_t>, kIntList, *out = v->list_i())
TACT_GET_ATTR(std::vector<int32_t>, kIntList, out->assign(v->list_i().begin(), v->list_i().end()))
TACT_GET_ATTR(std::vector<float>, kFloatList, *out = v->list_f())
TACT_GET_ATTR(std::vector<std::string>, kStringList, *out = v->list_s())
TACT_GET_ATTR(std::vector<DataType>, kTypeList, *out = v->list_type())
TACT_GET_ATTR(std::vector<PartialTensorShape>, kShapeList, *out = v->list_shape())
TACT_GET_ATTR(std::vector<Tensor>, kTensorList, *out = v->list_tensor())
#undef TACT_GET_ATTR

Status GetAttr(const AttrMap& attrs, const std::string& name, TensorShape* out) {
  PartialTensorShape p;
  TACT_RETURN_IF_ERROR(GetAttr(attrs, name, &p));
  StatusOr<TensorShape> s = p.AsTensorShape();
  if (!s.ok()) return s.status().WithPrefix("attr '" + name + "': ");
  *out = *s;
  return Status::OK();
}

}  // namespace tact

#include "graph/op_def.h"

#include <cctype>

#include "graph/op_registry.h"

namespace tact {

const OpDef::AttrDef* OpDef::FindAttr(const std::string& attr) const {
  for (const AttrDef& a : attrs) {
    if (a.name == attr) return &a;
  }
  return nullptr;
}

namespace {

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

bool IsIdentifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  }
  return true;
}

// Splits "a, b, c" at commas (no nesting is needed for attr literals).
std::vector<std::string> SplitList(const std::string& inner) {
  std::vector<std::string> parts;
  if (Trim(inner).empty()) return parts;
  size_t start = 0;
  for (size_t i = 0; i <= inner.size(); ++i) {
    if (i == inner.size() || inner[i] == ',') {
      parts.push_back(Trim(inner.substr(start, i - start)));
      start = i + 1;
    }
  }
  return parts;
}

StatusOr<DataType> ParseTypeName(std::string text) {
  if (text.rfind("DT_", 0) == 0) {
    text = text.substr(3);
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return DataTypeFromString(text);
}

StatusOr<PartialTensorShape> ParseShapeLiteral(const std::string& text) {
  if (text == "<unknown>" || text == "unknown") return PartialTensorShape::Unknown();
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') {
    return errors::InvalidArgument("malformed shape literal '", text, "'");
  }
  std::vector<int64_t> dims;
  for (const std::string& d : SplitList(text.substr(1, text.size() - 2))) {
    if (d == "?") {
      dims.push_back(-1);
      continue;
    }
    try {
      dims.push_back(std::stoll(d));
    } catch (...) {
      return errors::InvalidArgument("malformed dimension '", d, "' in shape '", text, "'");
    }
  }
  return PartialTensorShape(dims);
}

StatusOr<AttrValue> ParseScalar(AttrValue::Kind kind, const std::string& text) {
  using K = AttrValue::Kind;
  try {
    switch (kind) {
      case K::kInt: {
        size_t used = 0;
        int64_t v = std::stoll(text, &used);
        if (used != text.size()) break;
        return AttrValue::Int(v);
      }
      case K::kFloat: {
        size_t used = 0;
        float v = std::stof(text, &used);
        if (used != text.size()) break;
        return AttrValue::Float(v);
      }
      case K::kBool:
        if (text == "true") return AttrValue::Bool(true);
        if (text == "false") return AttrValue::Bool(false);
        break;
      case K::kString:
        if (text.size() >= 2 && (text.front() == '\'' || text.front() == '"') &&
            text.back() == text.front()) {
          return AttrValue::String(text.substr(1, text.size() - 2));
        }
        break;
      case K::kType: {
        TACT_ASSIGN_OR_RETURN(DataType t, ParseTypeName(text));
        return AttrValue::Type(t);
      }
      case K::kShape: {
        TACT_ASSIGN_OR_RETURN(PartialTensorShape s, ParseShapeLiteral(text));
        return AttrValue::Shape(s);
      }
      default:
        break;
    }
  } catch (...) {
  }
  return errors::InvalidArgument("cannot parse '", text, "' as ", AttrKindName(kind));
}

AttrValue::Kind ElementKind(AttrValue::Kind list) {
  using K = AttrValue::Kind;
  switch (list) {
    case K::kIntList: return K::kInt;
    case K::kFloatList: return K::kFloat;
    case K::kBoolList: return K::kBool;
    case K::kStringList: return K::kString;
    case K::kTypeList: return K::kType;
    case K::kShapeList: return K::kShape;
    case K::kTensorList: return K::kTensor;
    default: return K::kNone;
  }
}

}  // namespace

StatusOr<AttrValue> ParseAttrLiteral(AttrValue::Kind kind, const std::string& raw) {
  const std::string text = Trim(raw);
  const AttrValue::Kind elem = ElementKind(kind);
  if (elem == AttrValue::Kind::kNone) return ParseScalar(kind, text);
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') {
    return errors::InvalidArgument("a list literal must be [...], got '", text, "'");
  }
  std::vector<AttrValue> items;
  // A shape list holds brackets itself; split shapes at "],".
  std::vector<std::string> parts;
  const std::string inner = text.substr(1, text.size() - 2);
  if (elem == AttrValue::Kind::kShape) {
    size_t start = 0;
    for (size_t i = 0; i < inner.size(); ++i) {
      if (inner[i] == ']') {
        parts.push_back(Trim(inner.substr(start, i + 1 - start)));
        start = inner.find(',', i);
        start = start == std::string::npos ? inner.size() : start + 1;
        i = start - 1;
      }
    }
  } else {
    parts = SplitList(inner);
  }
  for (const std::string& p : parts) {
    TACT_ASSIGN_OR_RETURN(AttrValue v, ParseScalar(elem, p));
    items.push_back(std::move(v));
  }
  using K = AttrValue::Kind;
  switch (kind) {
    case K::kIntList: { std::vector<int64_t> v; for (auto& i : items) v.push_back(i.i()); return AttrValue::IntList(v); }
    case K::kFloatList: { std::vector<float> v; for (auto& i : items) v.push_back(i.f()); return AttrValue::FloatList(v); }
    case K::kBoolList: { std::vector<bool> v; for (auto& i : items) v.push_back(i.b()); return AttrValue::BoolList(v); }
    case K::kStringList: { std::vector<std::string> v; for (auto& i : items) v.push_back(i.s()); return AttrValue::StringList(v); }
    case K::kTypeList: { std::vector<DataType> v; for (auto& i : items) v.push_back(i.type()); return AttrValue::TypeList(v); }
    case K::kShapeList: { std::vector<PartialTensorShape> v; for (auto& i : items) v.push_back(i.shape()); return AttrValue::ShapeList(v); }
    default: return errors::InvalidArgument("no literal form for ", AttrKindName(kind));
  }
}

OpDefBuilder::OpDefBuilder(std::string name) { def_.name = std::move(name); }
OpDefBuilder& OpDefBuilder::Input(std::string spec) { input_specs_.push_back(std::move(spec)); return *this; }
OpDefBuilder& OpDefBuilder::Output(std::string spec) { output_specs_.push_back(std::move(spec)); return *this; }
OpDefBuilder& OpDefBuilder::Attr(std::string spec) { attr_specs_.push_back(std::move(spec)); return *this; }
OpDefBuilder& OpDefBuilder::SetIsStateful() { def_.is_stateful = true; return *this; }
OpDefBuilder& OpDefBuilder::SetAllowsCycles() { def_.allows_cycles = true; return *this; }
OpDefBuilder& OpDefBuilder::SetShapeFn(ShapeFn fn) { def_.shape_fn = std::move(fn); return *this; }

namespace {

StatusOr<OpDef::AttrDef> ParseAttrSpec(const std::string& spec) {
  OpDef::AttrDef attr;
  const size_t colon = spec.find(':');
  if (colon == std::string::npos) return errors::InvalidArgument("attr spec needs 'name: type'");
  attr.name = Trim(spec.substr(0, colon));
  if (!IsIdentifier(attr.name)) return errors::InvalidArgument("bad attr name '", attr.name, "'");
  std::string rest = spec.substr(colon + 1);
  // The default follows the first '=' that is not part of ">=" and not quoted.
  std::string default_text;
  bool quoted = false;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '\'' || rest[i] == '"') quoted = !quoted;
    if (!quoted && rest[i] == '=' && (i == 0 || rest[i - 1] != '>')) {
      default_text = Trim(rest.substr(i + 1));
      rest = rest.substr(0, i);
      break;
    }
  }
  rest = Trim(rest);
  const size_t ge = rest.find(">=");
  if (ge != std::string::npos) {
    try {
      attr.minimum = std::stoll(Trim(rest.substr(ge + 2)));
    } catch (...) {
      return errors::InvalidArgument("bad minimum in '", rest, "'");
    }
    rest = Trim(rest.substr(0, ge));
  }
  if (!rest.empty() && rest.front() == '{') {
    if (rest.back() != '}') return errors::InvalidArgument("unterminated '{' in '", rest, "'");
    const std::vector<std::string> values = SplitList(rest.substr(1, rest.size() - 2));
    const bool strings = !values.empty() && (values[0][0] == '\'' || values[0][0] == '"');
    attr.kind = strings ? AttrValue::Kind::kString : AttrValue::Kind::kType;
    for (const std::string& v : values) {
      TACT_ASSIGN_OR_RETURN(AttrValue parsed, ParseScalar(attr.kind, v));
      attr.allowed_values.push_back(std::move(parsed));
    }
  } else {
    TACT_ASSIGN_OR_RETURN(attr.kind, AttrKindFromName(rest));
  }
  if (!default_text.empty()) {
    TACT_ASSIGN_OR_RETURN(AttrValue v, ParseAttrLiteral(attr.kind, default_text));
    attr.default_value = std::move(v);
  }
  return attr;
}

StatusOr<OpDef::ArgDef> ParseArgSpec(const std::string& spec, const OpDef& def) {
  OpDef::ArgDef arg;
  const size_t colon = spec.find(':');
  if (colon == std::string::npos) return errors::InvalidArgument("arg spec needs 'name: type'");
  arg.name = Trim(spec.substr(0, colon));
  if (!IsIdentifier(arg.name)) return errors::InvalidArgument("bad arg name '", arg.name, "'");
  std::string type = Trim(spec.substr(colon + 1));
  if (type.rfind("Ref(", 0) == 0 && type.back() == ')') {
    arg.is_ref = true;
    type = Trim(type.substr(4, type.size() - 5));
  }
  const size_t star = type.find('*');
  if (star != std::string::npos) {
    arg.number_attr = Trim(type.substr(0, star));
    type = Trim(type.substr(star + 1));
    const OpDef::AttrDef* n = def.FindAttr(arg.number_attr);
    if (n == nullptr || n->kind != AttrValue::Kind::kInt) {
      return errors::InvalidArgument("'", arg.number_attr, "' must be an int attr");
    }
  }
  StatusOr<DataType> fixed = DataTypeFromString(type);
  if (fixed.ok()) {
    arg.type = *fixed;
    return arg;
  }
  const OpDef::AttrDef* a = def.FindAttr(type);
  if (a == nullptr) return errors::InvalidArgument("'", type, "' is neither a dtype nor an attr");
  if (a->kind == AttrValue::Kind::kType) {
    arg.type_attr = type;
  } else if (a->kind == AttrValue::Kind::kTypeList && arg.number_attr.empty()) {
    arg.type_list_attr = type;
  } else {
    return errors::InvalidArgument("attr '", type, "' must be a type (or list(type))");
  }
  return arg;
}

}  // namespace

StatusOr<OpDef> OpDefBuilder::Finalize() const {
  OpDef def = def_;
  const std::string where = "op '" + def.name + "': ";
  for (const std::string& spec : attr_specs_) {
    StatusOr<OpDef::AttrDef> a = ParseAttrSpec(spec);
    if (!a.ok()) return a.status().WithPrefix(where + "attr '" + spec + "': ");
    def.attrs.push_back(std::move(a).value());
  }
  for (const std::string& spec : input_specs_) {
    StatusOr<OpDef::ArgDef> a = ParseArgSpec(spec, def);
    if (!a.ok()) return a.status().WithPrefix(where + "input '" + spec + "': ");
    def.inputs.push_back(std::move(a).value());
  }
  for (const std::string& spec : output_specs_) {
    StatusOr<OpDef::ArgDef> a = ParseArgSpec(spec, def);
    if (!a.ok()) return a.status().WithPrefix(where + "output '" + spec + "': ");
    def.outputs.push_back(std::move(a).value());
  }
  return def;
}

}  // namespace tact

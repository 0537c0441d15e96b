// AttrValue: the value of one attribute of a node (paper 2: "attributes are
// provided at graph-construction time"): an int, float, bool, string, dtype,
// shape or tensor, or a list of one of those.
//
//   AttrValue t = AttrValue::Type(DT_FLOAT);
//   AttrValue perm = AttrValue::IntList({1, 0});
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "graph/status.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"

namespace tact {

class AttrValue {
 public:
  enum class Kind {
    kNone, kInt, kFloat, kBool, kString, kType, kShape, kTensor,
    kIntList, kFloatList, kBoolList, kStringList, kTypeList, kShapeList, kTensorList,
  };

  AttrValue() = default;  // kNone
  static AttrValue Int(int64_t v) { return AttrValue(v); }
  static AttrValue Float(float v) { return AttrValue(v); }
  static AttrValue Bool(bool v) { return AttrValue(Boolean{v}); }
  static AttrValue String(std::string v) { return AttrValue(std::move(v)); }
  static AttrValue Type(DataType v) { return AttrValue(v); }
  static AttrValue Shape(PartialTensorShape v) { return AttrValue(std::move(v)); }
  static AttrValue FromTensor(Tensor v) { return AttrValue(std::move(v)); }
  static AttrValue IntList(std::vector<int64_t> v) { return AttrValue(std::move(v)); }
  static AttrValue FloatList(std::vector<float> v) { return AttrValue(std::move(v)); }
  static AttrValue BoolList(std::vector<bool> v) { return AttrValue(std::move(v)); }
  static AttrValue StringList(std::vector<std::string> v) { return AttrValue(std::move(v)); }
  static AttrValue TypeList(std::vector<DataType> v) { return AttrValue(std::move(v)); }
  static AttrValue ShapeList(std::vector<PartialTensorShape> v) { return AttrValue(std::move(v)); }
  static AttrValue TensorList(std::vector<Tensor> v) { return AttrValue(std::move(v)); }

  Kind kind() const { return static_cast<Kind>(value_.index()); }
  bool is_list() const { return kind() >= Kind::kIntList; }
  // For a list: its length; otherwise 0.
  size_t list_size() const;

  // Accessors: the caller checks kind() first (a mismatch aborts).
  int64_t i() const { return std::get<int64_t>(value_); }
  float f() const { return std::get<float>(value_); }
  bool b() const { return std::get<Boolean>(value_).v; }
  const std::string& s() const { return std::get<std::string>(value_); }
  DataType type() const { return std::get<DataType>(value_); }
  const PartialTensorShape& shape() const { return std::get<PartialTensorShape>(value_); }
  const Tensor& tensor() const { return std::get<Tensor>(value_); }
  const std::vector<int64_t>& list_i() const { return std::get<std::vector<int64_t>>(value_); }
  const std::vector<float>& list_f() const { return std::get<std::vector<float>>(value_); }
  const std::vector<bool>& list_b() const { return std::get<std::vector<bool>>(value_); }
  const std::vector<std::string>& list_s() const { return std::get<std::vector<std::string>>(value_); }
  const std::vector<DataType>& list_type() const { return std::get<std::vector<DataType>>(value_); }
  const std::vector<PartialTensorShape>& list_shape() const {
    return std::get<std::vector<PartialTensorShape>>(value_);
  }
  const std::vector<Tensor>& list_tensor() const { return std::get<std::vector<Tensor>>(value_); }

  // Equal kinds and values; tensors compare bitwise.
  bool operator==(const AttrValue& other) const;
  bool operator!=(const AttrValue& other) const { return !(*this == other); }

  // "float", "[1,0]", "\"SAME\"", ... for error messages and CSE keys.
  std::string DebugString() const;

 private:
  struct Boolean { bool v; };  // keeps bool apart from the integer alternative
  using Value = std::variant<std::monostate, int64_t, float, Boolean, std::string, DataType,
                             PartialTensorShape, Tensor, std::vector<int64_t>, std::vector<float>,
                             std::vector<bool>, std::vector<std::string>, std::vector<DataType>,
                             std::vector<PartialTensorShape>, std::vector<Tensor>>;
  template <typename T>
  explicit AttrValue(T v) : value_(std::move(v)) {}
  Value value_;
};

// "int", "list(type)", ...: the names OpDef attr declarations use.
const char* AttrKindName(AttrValue::Kind kind);
StatusOr<AttrValue::Kind> AttrKindFromName(const std::string& name);

// A node's attributes, ordered by name so that every printout and hash of
// them is deterministic.
using AttrMap = std::map<std::string, AttrValue>;

// Typed reads of one attribute. NotFound / InvalidArgument name the attr.
Status GetAttr(const AttrMap& attrs, const std::string& name, int64_t* out);
Status GetAttr(const AttrMap& attrs, const std::string& name, int32_t* out);
Status GetAttr(const AttrMap& attrs, const std::string& name, float* out);
Status GetAttr(const AttrMap& attrs, const std::string& name, bool* out);
Status GetAttr(const AttrMap& attrs, const std::string& name, std::string* out);
Status GetAttr(const AttrMap& attrs, const std::string& name, DataType* out);
Status GetAttr(const AttrMap& attrs, const std::string& name, PartialTensorShape* out);
Status GetAttr(const AttrMap& attrs, const std::string& name, TensorShape* out);
Status GetAttr(const AttrMap& attrs, const std::string& name, Tensor* out);
Status GetAttr(const AttrMap& attrs, const std::string& name, std::vector<int64_t>* out);
Status GetAttr(const AttrMap& attrs, const std::string& name, std::vector<int32_t>* out);
Status GetAttr(const AttrMap& attrs, const std::string& name, std::vector<float>* out);
Status GetAttr(const AttrMap& attrs, const std::string& name, std::vector<std::string>* out);
Status GetAttr(const AttrMap& attrs, const std::string& name, std::vector<DataType>* out);
Status GetAttr(const AttrMap& attrs, const std::string& name, std::vector<PartialTensorShape>* out);
Status GetAttr(const AttrMap& attrs, const std::string& name, std::vector<Tensor>* out);

}  // namespace tact

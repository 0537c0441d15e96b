// OpDef: what an op is, independent of any kernel: its inputs and outputs,
// its attrs (with defaults and allowed values, which make an op polymorphic:
// `T: {float, double}`), whether it is stateful, and its shape function.
//
// Ops are declared once, next to their definition, with a static one-liner:
//
//   REGISTER_OP("MatMul")
//       .Input("a: T").Input("b: T").Output("product: T")
//       .Attr("transpose_a: bool = false").Attr("transpose_b: bool = false")
//       .Attr("T: {float, double}")
//       .SetShapeFn(MatMulShape);
//
// Argument specs: "x: float" (fixed type), "x: T" (type attr), "x: N * T"
// (a list of N tensors of type T), "x: Tlist" (a list(type) attr),
// "x: Ref(T)" (a reference to a Variable's state).
// Attr specs: "name: kind [= default]" where kind is int, float, bool,
// string, type, shape, tensor, list(...), "{float, int32}" (type with allowed
// values) or "{'SAME', 'VALID'}" (string with allowed values); "int >= 1"
// sets a minimum.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "graph/attr_value.h"
#include "graph/shape_inference.h"

namespace tact {

struct OpDef {
  struct ArgDef {
    std::string name;
    DataType type = DT_INVALID;  // fixed type, or DT_INVALID
    std::string type_attr;       // "T"
    std::string number_attr;     // "N" of "N * T"
    std::string type_list_attr;  // "Tlist"
    bool is_ref = false;
    bool is_list() const { return !number_attr.empty() || !type_list_attr.empty(); }
  };
  struct AttrDef {
    std::string name;
    AttrValue::Kind kind = AttrValue::Kind::kNone;
    std::optional<AttrValue> default_value;
    // For type / string attrs (and their lists): the values allowed, empty
    // meaning any.
    std::vector<AttrValue> allowed_values;
    std::optional<int64_t> minimum;  // for int attrs, and the length of lists
  };

  std::string name;
  std::vector<ArgDef> inputs;
  std::vector<ArgDef> outputs;
  std::vector<AttrDef> attrs;
  bool is_stateful = false;  // never merged by CSE, never constant-folded
  // Cycles through this op are legal (NextIteration, paper 4.4).
  bool allows_cycles = false;
  ShapeFn shape_fn = shape_fn::Unknown;

  const AttrDef* FindAttr(const std::string& attr) const;
};

class OpDefBuilder {
 public:
  explicit OpDefBuilder(std::string name);
  OpDefBuilder& Input(std::string spec);
  OpDefBuilder& Output(std::string spec);
  OpDefBuilder& Attr(std::string spec);
  OpDefBuilder& SetIsStateful();
  OpDefBuilder& SetAllowsCycles();
  OpDefBuilder& SetShapeFn(ShapeFn fn);

  // Parses every spec; the error names the op and the spec.
  StatusOr<OpDef> Finalize() const;

 private:
  OpDef def_;
  std::vector<std::string> input_specs_, output_specs_, attr_specs_;
};

// Parses one attr value literal of the given kind ("false", "[1,1]", "'SAME'",
// "float", "DT_FLOAT", "-1.5"). Exposed for tests.
StatusOr<AttrValue> ParseAttrLiteral(AttrValue::Kind kind, const std::string& text);

}  // namespace tact

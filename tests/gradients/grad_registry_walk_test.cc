// Every op that could carry a gradient (a stateless op with a floating input
// and a floating output) has a gradient function, or is registered as having
// none, or is on the short list below with its reason: a missing
// registration shows up here rather than as "no gradient function" in the
// middle of someone's backward pass.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "graph/gradients/grad_registry.h"
#include "graph/op_registry.h"

namespace tact {
namespace {

const std::set<std::string> kWithoutGradient = {
    // The loop's own plumbing: the loop gradient (loop_grad.h) builds the
    // backward loop as a whole rather than op by op.
    "Enter", "RefEnter", "Exit", "NextIteration", "LoopCond",
    // The lossy transfer's halves, which the partitioner inserts into a
    // graph whose gradients were built before.
    "_TruncateToUpper16", "_ExpandFromUpper16",
    // gradients_test.cc's op that checks the error for an op without one.
    "TestNoGradient",
};

// True if the arg may hold a floating type.
bool MayBeFloating(const OpDef& op, const OpDef::ArgDef& arg) {
  if (arg.type != DT_INVALID) return DataTypeIsFloating(BaseType(arg.type));
  const std::string& attr = arg.type_attr.empty() ? arg.type_list_attr : arg.type_attr;
  const OpDef::AttrDef* def = op.FindAttr(attr);
  if (def == nullptr || def->allowed_values.empty()) return true;  // any type
  for (const AttrValue& v : def->allowed_values) {
    if (v.kind() == AttrValue::Kind::kType && DataTypeIsFloating(v.type())) return true;
  }
  return false;
}

TEST(GradRegistryWalkTest, EveryDifferentiableOpHasAGradientOrSaysItHasNone) {
  int walked = 0;
  for (const std::string& name : OpRegistry::Global()->ListOps()) {
    const OpDef* op = *OpRegistry::Global()->LookUp(name);
    bool ref = false;
    for (const auto& a : op->inputs) ref = ref || a.is_ref;
    if (op->is_stateful || ref) continue;  // state, not a function of the inputs
    bool in = false, out = false;
    for (const auto& a : op->inputs) in = in || MayBeFloating(*op, a);
    for (const auto& a : op->outputs) out = out || MayBeFloating(*op, a);
    if (!in || !out) continue;
    ++walked;
    GradFunc fn = nullptr;
    const bool registered = GradOpRegistry::Global()->Lookup(name, &fn).ok();
    if (kWithoutGradient.count(name) > 0) {
      EXPECT_FALSE(registered) << name << " is registered now: take it off the list";
      continue;
    }
    EXPECT_TRUE(registered) << name << " has no gradient function and is not registered as "
                            << "having none (REGISTER_NO_GRADIENT_OP)";
  }
  EXPECT_GT(walked, 60);
}

}  // namespace
}  // namespace tact

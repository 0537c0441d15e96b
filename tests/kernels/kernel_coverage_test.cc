// Every core op of the foundation has an op definition and a CPU kernel
// for float (where the op takes a T): a missing registration shows up here
// rather than as a NotFound in the middle of someone's training run.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>

#include "graph/op_registry.h"
#include "kernels/kernel_registry.h"
#include "tests/kernels/kernel_test_util.h"

namespace tact {
namespace {

const char* const kCoreOps[] = {
    "Const", "Placeholder", "Identity", "NoOp", "Add", "Sub", "Mul", "Div", "Neg", "Maximum",
    "Minimum", "Pow", "SquaredDifference", "Exp", "Log", "Sqrt", "Rsqrt", "Square", "Abs",
    "Sign", "Tanh", "Sigmoid", "Relu", "Relu6", "Elu", "Softplus", "Equal", "NotEqual", "Less",
    "LessEqual", "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr", "LogicalNot", "Select",
    "Cast", "MatMul", "BatchMatMul", "BiasAdd", "Conv2D", "MaxPool", "AvgPool", "Softmax",
    "LogSoftmax", "SparseSoftmaxCrossEntropyWithLogits", "Sum", "Mean", "Max", "Min", "Prod",
    "ArgMax", "ArgMin", "Reshape", "Transpose", "ExpandDims", "Squeeze", "ConcatV2", "Split",
    "Slice", "StridedSlice", "Pad", "Tile", "Gather", "Pack", "Unpack", "Fill", "ZerosLike",
    "OnesLike", "Shape", "Size", "Rank", "Range", "OneHot", "AddN", "RandomUniform",
    "RandomStandardNormal", "TruncatedNormal", "StatelessRandomUniform", "StatelessRandomNormal",
    "StatelessTruncatedNormal", "ReluGrad", "Relu6Grad", "EluGrad",
    "SoftplusGrad", "SigmoidGrad", "TanhGrad", "BiasAddGrad", "Conv2DBackpropInput",
    "Conv2DBackpropFilter", "MaxPoolGrad", "AvgPoolGrad", "BroadcastGradientArgs",
    "Variable", "Assign", "AssignAdd", "AssignSub", "IsVariableInitialized", "_Send", "_Recv",
    "ApplyGradientDescent", "ApplyMomentum", "ApplyAdam", "ApplyRMSProp", "ApplyAdagrad",
    "ApplyAdagradV2", "CheckNumerics"};

TEST(KernelCoverageTest, EveryCoreOpIsDefinedAndHasACpuKernel) {
  for (const char* op : kCoreOps) {
    EXPECT_TRUE(OpRegistry::Global()->LookUp(op).ok()) << op << " is not registered";
    bool cpu = false;
    for (const KernelDef* k : KernelRegistry::Global()->KernelsFor(op)) {
      cpu = cpu || k->device_type == DEVICE_CPU;
    }
    EXPECT_TRUE(cpu) << op << " has no CPU kernel";
  }
}

// (op, type attr, dtype) that the op declares and no CPU kernel computes,
// each with its reason.
struct Exception {
  const char* op;
  const char* attr;
  DataType dtype;
};
const Exception kWithoutCpuKernel[] = {
    // Cast between numbers only: TensorFlow's Cast has no string kernel either
    // (StringToNumber and AsString are ops of their own, not built here).
    {"Cast", "SrcT", DT_STRING},
    {"Cast", "DstT", DT_STRING},
    // The test op that checks the error for a declared type without a kernel
    // (constant_ops_test.cc).
    {"TestFloatOnly", "T", DT_INT32},
};

bool Excepted(const std::string& op, const std::string& attr, DataType t) {
  for (const Exception& e : kWithoutCpuKernel) {
    if (op == e.op && attr == e.attr && t == e.dtype) return true;
  }
  return false;
}

// True if some CPU kernel of `op` takes `t` for `attr` (one without a
// constraint on the attr takes every type).
bool HasCpuKernelFor(const std::string& op, const std::string& attr, DataType t) {
  for (const KernelDef* k : KernelRegistry::Global()->KernelsFor(op)) {
    if (k->device_type != DEVICE_CPU) continue;
    auto it = k->type_constraints.find(attr);
    if (it == k->type_constraints.end()) return true;
    for (DataType c : it->second) {
      if (c == t) return true;
    }
  }
  return false;
}

// Every (op, dtype) that an op's declaration allows computes on the CPU,
// but for the short list above. A type attr that allows any type is walked
// over every value type but resource: a resource is a handle that only its
// own op makes (a queue, a reader), never a value an op computes on.
TEST(KernelCoverageTest, EveryDeclaredDtypeHasACpuKernel) {
  int pairs = 0;
  for (const std::string& op : OpRegistry::Global()->ListOps()) {
    const OpDef* def = *OpRegistry::Global()->LookUp(op);
    // Ops whose kernels live in a layer this binary does not link (checkpoint/).
    if (KernelRegistry::Global()->KernelsFor(op).empty()) continue;
    for (const OpDef::AttrDef& attr : def->attrs) {
      if (attr.kind != AttrValue::Kind::kType) continue;
      std::vector<DataType> allowed;
      for (const AttrValue& v : attr.allowed_values) allowed.push_back(v.type());
      if (allowed.empty()) {
        for (DataType t : AllDataTypes()) {
          if (t != DT_RESOURCE) allowed.push_back(t);
        }
      }
      for (DataType t : allowed) {
        ++pairs;
        if (Excepted(op, attr.name, t)) {
          EXPECT_FALSE(HasCpuKernelFor(op, attr.name, t))
              << op << " " << attr.name << "=" << DataTypeString(t)
              << " has a kernel now: take it off the list";
          continue;
        }
        EXPECT_TRUE(HasCpuKernelFor(op, attr.name, t))
            << op << " declares " << attr.name << "=" << DataTypeString(t)
            << " but no CPU kernel computes it";
      }
    }
  }
  EXPECT_GT(pairs, 500);  // the walk saw the registry
}

// Ops whose outputs' shapes no shape function can know from the graph, with
// the reason. (Tests register ops of their own, named Test*, and skip it.)
const char* const kUnknownShape[] = {
    // A queue's elements: the dequeue ops carry only component_types, as
    // TensorFlow's do; the shapes are the queue's, known when it runs.
    "QueueDequeue", "QueueDequeueMany", "QueueDequeueUpTo",
    // An element of a TensorArray: its shape is the array's, not an attr of
    // the read (TensorFlow reads it from the handle's data; tact's handles
    // carry none).
    "TensorArrayRead",
    // What arrives from another partition: the partitioner runs after shape
    // inference, on a GraphDef that carries no shapes.
    "_Recv",
};

// Every op with outputs has a shape function (shape_fn::Unknown is the
// default of one that declares none), but for the list above. How precise
// each is, its own tests check (StridedSlice's masks, Concat, the pools...).
TEST(KernelCoverageTest, EveryOpHasAShapeFunction) {
  int walked = 0;
  for (const std::string& op : OpRegistry::Global()->ListOps()) {
    if (op.rfind("Test", 0) == 0) continue;
    const OpDef* def = *OpRegistry::Global()->LookUp(op);
    if (def->outputs.empty()) continue;
    ++walked;
    auto* fn = def->shape_fn.target<Status (*)(InferenceContext*)>();
    const bool unknown = fn != nullptr && *fn == &shape_fn::Unknown;
    const bool listed = std::find_if(std::begin(kUnknownShape), std::end(kUnknownShape),
                                     [&](const char* n) { return op == n; }) != std::end(kUnknownShape);
    if (listed) {
      EXPECT_TRUE(unknown) << op << " has a shape function now: take it off the list";
    } else {
      EXPECT_FALSE(unknown) << op << " has no shape function: its outputs are always unknown";
    }
  }
  EXPECT_GT(walked, 100);  // the walk saw the registry (134 ops with outputs today)
}

TEST(KernelCoverageTest, UnfedPlaceholderNamesItself) {
  auto out = test::RunOp("Placeholder", {}, {{"dtype", AttrValue::Type(DT_FLOAT)}});
  test::ExpectError(out.status(), Code::kInvalidArgument,
                    "node 'test_Placeholder' (op 'Placeholder'): a value must be fed");
}

}  // namespace
}  // namespace tact

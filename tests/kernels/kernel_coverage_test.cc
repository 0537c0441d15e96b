// Every core op of the foundation has an op definition and a CPU kernel
// for float (where the op takes a T): a missing registration shows up here
// rather than as a NotFound in the middle of someone's training run.
#include <gtest/gtest.h>

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
    "ApplyGradientDescent", "ApplyMomentum", "ApplyAdam", "CheckNumerics"};

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

TEST(KernelCoverageTest, UnfedPlaceholderNamesItself) {
  auto out = test::RunOp("Placeholder", {}, {{"dtype", AttrValue::Type(DT_FLOAT)}});
  test::ExpectError(out.status(), Code::kInvalidArgument,
                    "node 'test_Placeholder' (op 'Placeholder'): a value must be fed");
}

}  // namespace
}  // namespace tact

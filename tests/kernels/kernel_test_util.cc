#include "tests/kernels/kernel_test_util.h"

#include <map>
#include <memory>
#include <mutex>

#include "graph/op_registry.h"
#include "kernels/kernel_registry.h"

namespace tact::test {

Device* CpuTestDevice(int threads) {
  static std::mutex mu;
  static std::map<int, std::unique_ptr<Device>>* devices = new std::map<int, std::unique_ptr<Device>>();
  std::lock_guard<std::mutex> lock(mu);
  auto& d = (*devices)[threads];
  if (!d) d = NewCpuDevice("/job:localhost/replica:0/task:0/device:CPU:0", threads);
  return d.get();
}

StatusOr<std::vector<Tensor>> RunOp(const std::string& op_name, const std::vector<Tensor>& inputs,
                                    AttrMap attrs, int threads) {
  return RunOpOn(CpuTestDevice(threads), op_name, inputs, std::move(attrs));
}

StatusOr<std::vector<Tensor>> RunOpOn(Device* device, const std::string& op_name,
                                      const std::vector<Tensor>& inputs, AttrMap attrs) {
  TACT_ASSIGN_OR_RETURN(const OpDef* op, OpRegistry::Global()->LookUp(op_name));
  // Group the inputs by arg: a lone list arg takes whatever the others leave.
  int list_args = 0;
  for (const auto& a : op->inputs) list_args += a.is_list() ? 1 : 0;
  const int list_len = static_cast<int>(inputs.size()) - (static_cast<int>(op->inputs.size()) - list_args);
  if (list_args > 1 || list_len < 0) {
    return errors::InvalidArgument("RunOp cannot group ", inputs.size(), " inputs for ", op_name);
  }
  std::vector<std::vector<DataType>> arg_types;
  size_t next = 0;
  for (const auto& a : op->inputs) {
    std::vector<DataType> types;
    const int n = a.is_list() ? list_len : 1;
    for (int i = 0; i < n; ++i) types.push_back(inputs[next++].dtype());
    arg_types.push_back(types);
  }
  TACT_RETURN_IF_ERROR(InferAttrsFromInputs(*op, arg_types, &attrs));
  NodeDef def;
  def.name = "test_" + op_name;
  def.op = op_name;
  def.attrs = std::move(attrs);
  TACT_ASSIGN_OR_RETURN(std::shared_ptr<const NodeProperties> props,
                        NodeProperties::Create(std::move(def)));
  for (size_t i = 0; i < inputs.size() && i < props->input_types.size(); ++i) {
    const DataType want =
        IsRefType(props->input_types[i]) ? DT_RESOURCE : props->input_types[i];
    if (want != inputs[i].dtype()) {
      return errors::InvalidArgument(props->ErrorPrefix(), "input ", i, " must be ",
                                     DataTypeString(props->input_types[i]), ", given ",
                                     DataTypeString(inputs[i].dtype()));
    }
  }
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<OpKernel> kernel, CreateOpKernel(device, props));
  OpKernelContext::Params params;
  params.device = device;
  params.op_kernel = kernel.get();
  params.inputs = inputs.data();
  params.num_inputs = static_cast<int>(inputs.size());
  OpKernelContext ctx(params);
  kernel->Compute(&ctx);
  TACT_RETURN_IF_ERROR(ctx.status());
  std::vector<Tensor> outputs = ctx.TakeOutputs();
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i].IsInitialized()) {
      return errors::Internal(props->ErrorPrefix(), "output ", i, " was never set");
    }
  }
  return outputs;
}

std::vector<double> ToDoubles(const Tensor& t) {
  std::vector<double> out(t.NumElements());
  bool ok = VisitDataType(t.dtype(), [&]<typename T>() {
    if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, complex64> ||
                  std::is_same_v<T, complex128>) {
      ADD_FAILURE() << "ToDoubles of " << DataTypeString(t.dtype());
    } else {
      const T* p = t.data<T>();
      for (int64_t i = 0; i < t.NumElements(); ++i) if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
          out[i] = static_cast<float>(p[i]);
        } else {
          out[i] = static_cast<double>(p[i]);
        }
    }
  });
  if (!ok) ADD_FAILURE() << "ToDoubles of " << DataTypeString(t.dtype());
  return out;
}

void ExpectClose(const Tensor& got, const TensorShape& shape, const std::vector<double>& want,
                 double rtol, double atol) {
  ASSERT_EQ(got.shape(), shape) << "got shape " << got.shape().DebugString();
  ASSERT_EQ(static_cast<size_t>(got.NumElements()), want.size());
  std::vector<double> g = ToDoubles(got);
  int failures = 0;
  for (size_t i = 0; i < want.size() && failures < 10; ++i) {
    const double tol = atol + rtol * std::abs(want[i]);
    const bool both_nan = std::isnan(g[i]) && std::isnan(want[i]);
    if (!both_nan && !(std::abs(g[i] - want[i]) <= tol) && g[i] != want[i]) {
      ADD_FAILURE() << "element " << i << ": got " << g[i] << ", want " << want[i];
      ++failures;
    }
  }
}

void ExpectError(const Status& s, Code code, const std::string& substring) {
  EXPECT_EQ(s.code(), code) << s.ToString();
  EXPECT_NE(s.message().find(substring), std::string::npos)
      << "message '" << s.message() << "' lacks '" << substring << "'";
}

}  // namespace tact::test

// The kernel registry: which OpKernel implements an op on a device type for
// given attr values (paper 2). Kernels register with a static one-liner:
//
//   REGISTER_KERNEL_BUILDER(Name("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"),
//                           MatMulOp<float>);
//
// Lookup picks the kernel whose device type matches and whose every type
// constraint holds for the node's attrs. When nothing matches, the error
// names the node and lists the kernels that do exist, so the fix is obvious.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernels/op_kernel.h"

namespace tact {

struct KernelDef {
  std::string op;
  std::string device_type;
  // attr name -> dtypes allowed for it
  std::map<std::string, std::vector<DataType>> type_constraints;
  // "CPU [T in {float, double}]"
  std::string DebugString() const;
};

class KernelDefBuilder {
 public:
  explicit KernelDefBuilder(std::string op) { def_.op = std::move(op); }
  KernelDefBuilder& Device(const char* device_type) {
    def_.device_type = device_type;
    return *this;
  }
  KernelDefBuilder& TypeConstraint(const std::string& attr, std::vector<DataType> allowed) {
    auto& v = def_.type_constraints[attr];
    v.insert(v.end(), allowed.begin(), allowed.end());
    return *this;
  }
  template <typename T>
  KernelDefBuilder& TypeConstraint(const std::string& attr) {
    return TypeConstraint(attr, {DataTypeToEnum<T>::value});
  }
  const KernelDef& def() const { return def_; }

 private:
  KernelDef def_;
};

// TensorFlow's spelling: Name("Add").Device(DEVICE_CPU)...
inline KernelDefBuilder Name(const char* op) { return KernelDefBuilder(op); }

using KernelFactory = std::function<OpKernel*(OpKernelConstruction*)>;

class KernelRegistry {
 public:
  static KernelRegistry* Global();
  void Register(KernelDef def, KernelFactory factory);

  // NotFound (naming the node, the device type, the attrs that selected and
  // the kernels registered for the op) when no kernel matches.
  StatusOr<const KernelDef*> Find(const std::string& device_type,
                                  const NodeProperties& node) const;
  // True if some kernel for `device_type` fits this node: the placer's
  // feasibility test, asked once per node and device type, so it builds no
  // strings and no error.
  bool HasKernel(const std::string& device_type, const NodeProperties& node) const {
    return FindEntry(device_type, node) != nullptr;
  }
  // Device types that have a kernel for this node (for the placer).
  std::vector<std::string> SupportedDeviceTypes(const NodeProperties& node) const;
  // Every kernel registered for `op`.
  std::vector<const KernelDef*> KernelsFor(const std::string& op) const;

 private:
  friend StatusOr<std::unique_ptr<OpKernel>> CreateOpKernel(
      Device*, std::shared_ptr<const NodeProperties>);
  struct Entry {
    KernelDef def;
    KernelFactory factory;
  };
  const Entry* FindEntry(const std::string& device_type, const NodeProperties& node) const;
  std::multimap<std::string, Entry> kernels_;  // by op; registration is static, reads are free
};

// Builds the kernel for `node` on `device`; the error of a failed
// construction (a bad attr value) names the node.
StatusOr<std::unique_ptr<OpKernel>> CreateOpKernel(Device* device,
                                                   std::shared_ptr<const NodeProperties> node);

struct KernelRegistration {
  KernelRegistration(const KernelDefBuilder& b, KernelFactory f) {
    KernelRegistry::Global()->Register(b.def(), std::move(f));
  }
};

}  // namespace tact

#define TACT_KERNEL_CONCAT_INNER(a, b) a##b
#define TACT_KERNEL_CONCAT(a, b) TACT_KERNEL_CONCAT_INNER(a, b)
// The kernel class may be a template with commas: it is the variadic part.
#define REGISTER_KERNEL_BUILDER(builder, ...)                                       \
  static const ::tact::KernelRegistration TACT_KERNEL_CONCAT(tact_kernel_, __COUNTER__)( \
      ::tact::builder, [](::tact::OpKernelConstruction* c) -> ::tact::OpKernel* {   \
        return new __VA_ARGS__(c);                                                  \
      })

#include "checkpoint/hdf5_util.h"

namespace tact::checkpoint_internal {

H5Handle& H5Handle::operator=(H5Handle&& o) noexcept {
  if (this != &o) {
    Reset();
    id_ = o.id_;
    close_ = o.close_;
    o.id_ = H5I_INVALID_HID;
  }
  return *this;
}

herr_t H5Handle::Close() {
  if (id_ < 0 || close_ == nullptr) return 0;
  const herr_t r = close_(id_);
  id_ = H5I_INVALID_HID;
  return r;
}

void QuietHdf5() {
  // Per thread in a thread-safe build, so remembered per thread.
  thread_local bool quiet = false;
  if (!quiet) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    quiet = true;
  }
}

namespace {

// Keeps the innermost message: the one that says what was really wrong
// ("truncated file: eof = ..."), where the outer ones say "unable to open".
herr_t KeepInnermost(unsigned n, const H5E_error2_t* err, void* out) {
  if (n == 0 && err->desc != nullptr) *static_cast<std::string*>(out) = err->desc;
  return 0;
}

}  // namespace

Status Hdf5Error(const std::string& what, const std::string& file, Code code) {
  std::string detail;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, KeepInnermost, &detail);
  H5Eclear2(H5E_DEFAULT);
  std::string message = what + " '" + file + "'";
  if (!detail.empty()) message += ": " + detail;
  return Status(code, message);
}

namespace {

// A 16-bit float type with the given exponent and mantissa widths.
H5Handle Float16Type(size_t exponent_bits, size_t mantissa_bits, size_t bias) {
  H5Handle t(H5Tcopy(H5T_IEEE_F32LE), H5Tclose);
  H5Tset_fields(t.get(), 15, mantissa_bits, exponent_bits, 0, mantissa_bits);
  H5Tset_size(t.get(), 2);
  H5Tset_ebias(t.get(), bias);
  return t;
}

H5Handle ComplexType(hid_t part, size_t part_size) {
  H5Handle t(H5Tcreate(H5T_COMPOUND, 2 * part_size), H5Tclose);
  H5Tinsert(t.get(), "r", 0, part);
  H5Tinsert(t.get(), "i", part_size, part);
  return t;
}

H5Handle BoolType() {
  H5Handle t(H5Tenum_create(H5T_NATIVE_INT8), H5Tclose);
  int8_t v = 0;
  H5Tenum_insert(t.get(), "FALSE", &v);
  v = 1;
  H5Tenum_insert(t.get(), "TRUE", &v);
  return t;
}

H5Handle Copy(hid_t predefined) { return H5Handle(H5Tcopy(predefined), H5Tclose); }

}  // namespace

StatusOr<H5Handle> Hdf5TypeFor(DataType dtype) {
  static_assert(sizeof(bool) == 1, "bool tensors are stored as one byte per element");
  switch (dtype) {
    case DT_FLOAT: return Copy(H5T_NATIVE_FLOAT);
    case DT_DOUBLE: return Copy(H5T_NATIVE_DOUBLE);
    case DT_INT8: return Copy(H5T_NATIVE_INT8);
    case DT_INT16: return Copy(H5T_NATIVE_INT16);
    case DT_INT32: return Copy(H5T_NATIVE_INT32);
    case DT_INT64: return Copy(H5T_NATIVE_INT64);
    case DT_UINT8: return Copy(H5T_NATIVE_UINT8);
    case DT_UINT16: return Copy(H5T_NATIVE_UINT16);
    case DT_UINT32: return Copy(H5T_NATIVE_UINT32);
    case DT_UINT64: return Copy(H5T_NATIVE_UINT64);
    case DT_BOOL: return BoolType();
    case DT_COMPLEX64: return ComplexType(H5T_NATIVE_FLOAT, sizeof(float));
    case DT_COMPLEX128: return ComplexType(H5T_NATIVE_DOUBLE, sizeof(double));
    case DT_HALF: return Float16Type(5, 10, 15);
    case DT_BFLOAT16: return Float16Type(8, 7, 127);
    case DT_STRING: {
      H5Handle t = Copy(H5T_C_S1);
      H5Tset_size(t.get(), H5T_VARIABLE);
      return t;
    }
    default:
      return errors::InvalidArgument("a checkpoint cannot hold dtype ", DataTypeString(dtype));
  }
}

H5Handle Hdf5ByteStringType() { return H5Handle(H5Tvlen_create(H5T_NATIVE_UINT8), H5Tclose); }

}  // namespace tact::checkpoint_internal

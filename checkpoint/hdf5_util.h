// What checkpoint/ needs of HDF5's C API, kept out of its public header:
// handles that close themselves, tact's DataTypes as HDF5 types, and HDF5's
// error stack turned into a Status.
//
// Why the C API and not H5Cpp.h: every C call returns a negative value on
// failure, which maps to a Status in one line; the C++ API throws, and an
// exception must never cross our API.
//
// Thread-safety: Debian's HDF5 is built thread-safe with one global lock, so
// these may be called from any thread, one HDF5 call running at a time. The
// error stack and its printing are per thread: call QuietHdf5() on every
// thread before its first HDF5 call (the public functions of checkpoint.h do).
#pragma once

#include <hdf5.h>

#include <string>

#include "graph/status.h"
#include "graph/types.h"

namespace tact::checkpoint_internal {

// Owns one hid_t and closes it with the matching H5?close. Move-only.
class H5Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  H5Handle() = default;
  H5Handle(hid_t id, Closer close) : id_(id), close_(close) {}
  H5Handle(H5Handle&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = H5I_INVALID_HID; }
  H5Handle& operator=(H5Handle&& o) noexcept;
  H5Handle(const H5Handle&) = delete;
  H5Handle& operator=(const H5Handle&) = delete;
  ~H5Handle() { Reset(); }

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  // Closes now; a failed close (data not written) is an error only the caller
  // of Close() can see, so files are closed this way, not by the destructor.
  herr_t Close();
  void Reset() { (void)Close(); }

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer close_ = nullptr;
};

// Turns off HDF5's printing of its error stack to stderr for this thread; our
// Status carries the message instead.
void QuietHdf5();

// DataLoss (or `code`) "<what> '<file>'[: <innermost HDF5 message>]", and
// clears this thread's HDF5 error stack.
Status Hdf5Error(const std::string& what, const std::string& file, Code code = Code::kDataLoss);

// The HDF5 type a dtype is stored as, in the file and in memory alike (so no
// conversion happens on either side): IEEE floats and integers little-endian
// as on this host, bool as an int8 enum {FALSE, TRUE}, complex as a compound
// {r, i} (both as h5py writes them), half and bfloat16 as 16-bit custom
// floats, strings as variable-length C strings. InvalidArgument for
// DT_RESOURCE and refs.
StatusOr<H5Handle> Hdf5TypeFor(DataType dtype);

// Strings holding a NUL byte cannot be C strings: they are stored as
// variable-length sequences of uint8 instead.
H5Handle Hdf5ByteStringType();

}  // namespace tact::checkpoint_internal

#include "checkpoint/guarded_driver.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <mutex>

namespace tact::checkpoint_internal {
namespace {

// What the property list carries to the driver's open.
struct DriverInfo {
  WriteFailure* failure;
};

struct GuardedFile {
  H5FD_t pub;  // HDF5's part; first, as HDF5 hands the driver an H5FD_t*
  int fd;
  haddr_t eoa;  // the end HDF5 has allocated up to
  haddr_t eof;  // the end of the file as HDF5 should see it
  dev_t device;
  ino_t inode;
  WriteFailure* failure;
};

GuardedFile* Cast(H5FD_t* f) { return reinterpret_cast<GuardedFile*>(f); }
const GuardedFile* Cast(const H5FD_t* f) { return reinterpret_cast<const GuardedFile*>(f); }

void Record(GuardedFile* f, const char* operation, int error, uint64_t offset, uint64_t bytes) {
  if (f->failure->failed()) return;
  *f->failure = WriteFailure{operation, error, offset, bytes};
}

// As sec2 opens: HDF5's access flags as open(2)'s. A failed open is HDF5's
// to report (H5Fcreate first probes for an existing file, and that open
// fails as a rule), with the errno pushed on its error stack.
H5FD_t* Open(const char* name, unsigned flags, hid_t fapl, haddr_t /*maxaddr*/) {
  const auto* info = static_cast<const DriverInfo*>(H5Pget_driver_info(fapl));
  if (info == nullptr || info->failure == nullptr) return nullptr;
  int o_flags = (flags & H5F_ACC_RDWR) ? O_RDWR : O_RDONLY;
  if (flags & H5F_ACC_TRUNC) o_flags |= O_TRUNC;
  if (flags & H5F_ACC_CREAT) o_flags |= O_CREAT;
  if (flags & H5F_ACC_EXCL) o_flags |= O_EXCL;
  const int fd = open(name, o_flags | O_CLOEXEC, 0666);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    const int error = errno;
    if (fd >= 0) close(fd);
    H5Epush2(H5E_DEFAULT, __FILE__, "Open", __LINE__, H5E_ERR_CLS, H5E_VFL, H5E_CANTOPENFILE,
             "cannot open '%s': %s", name, std::strerror(error));
    return nullptr;
  }
  auto* f = new GuardedFile{};
  f->fd = fd;
  f->eof = static_cast<haddr_t>(st.st_size);
  f->device = st.st_dev;
  f->inode = st.st_ino;
  f->failure = info->failure;
  return &f->pub;
}

herr_t Close(H5FD_t* file) {
  GuardedFile* f = Cast(file);
  const int rc = close(f->fd);
  delete f;
  return rc == 0 ? 0 : -1;
}

int Compare(const H5FD_t* a, const H5FD_t* b) {
  const GuardedFile* x = Cast(a);
  const GuardedFile* y = Cast(b);
  if (x->device != y->device) return x->device < y->device ? -1 : 1;
  if (x->inode != y->inode) return x->inode < y->inode ? -1 : 1;
  return 0;
}

herr_t Query(const H5FD_t* /*file*/, unsigned long* flags) {
  // sec2's: HDF5 gathers small metadata and raw data into large writes.
  *flags = H5FD_FEAT_AGGREGATE_METADATA | H5FD_FEAT_ACCUMULATE_METADATA | H5FD_FEAT_DATA_SIEVE |
           H5FD_FEAT_AGGREGATE_SMALLDATA | H5FD_FEAT_POSIX_COMPAT_HANDLE |
           H5FD_FEAT_DEFAULT_VFD_COMPATIBLE;
  return 0;
}

haddr_t GetEoa(const H5FD_t* file, H5FD_mem_t) { return Cast(file)->eoa; }

herr_t SetEoa(H5FD_t* file, H5FD_mem_t, haddr_t addr) {
  Cast(file)->eoa = addr;
  return 0;
}

haddr_t GetEof(const H5FD_t* file, H5FD_mem_t) { return Cast(file)->eof; }

herr_t GetHandle(H5FD_t* file, hid_t, void** handle) {
  *handle = &Cast(file)->fd;
  return 0;
}

// Past the end of the file reads zeros, as sec2's does.
herr_t Read(H5FD_t* file, H5FD_mem_t, hid_t, haddr_t addr, size_t size, void* buffer) {
  GuardedFile* f = Cast(file);
  if (addr + size < addr || addr + size > f->eoa) return -1;
  auto* out = static_cast<char*>(buffer);
  while (size > 0) {
    const ssize_t n = pread(f->fd, out, size, static_cast<off_t>(addr));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) {
      std::memset(out, 0, size);
      break;
    }
    out += n;
    addr += static_cast<haddr_t>(n);
    size -= static_cast<size_t>(n);
  }
  return 0;
}

herr_t Write(H5FD_t* file, H5FD_mem_t, hid_t, haddr_t addr, size_t size, const void* buffer) {
  GuardedFile* f = Cast(file);
  if (addr + size < addr || addr + size > f->eoa) return -1;  // HDF5's own mistake, not the disk's
  f->eof = std::max<haddr_t>(f->eof, addr + size);
  // After a failure the file is lost anyway: skip the rest.
  const char* in = static_cast<const char*>(buffer);
  while (size > 0 && !f->failure->failed()) {
    const ssize_t n = pwrite(f->fd, in, size, static_cast<off_t>(addr));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Record(f, "write", n < 0 ? errno : EIO, addr, size);
      break;
    }
    in += n;
    addr += static_cast<haddr_t>(n);
    size -= static_cast<size_t>(n);
  }
  return 0;
}

herr_t Truncate(H5FD_t* file, hid_t, hbool_t /*closing*/) {
  GuardedFile* f = Cast(file);
  if (f->eoa == f->eof) return 0;
  if (!f->failure->failed() && ftruncate(f->fd, static_cast<off_t>(f->eoa)) != 0) {
    Record(f, "truncate", errno, f->eoa, 0);
  }
  f->eof = f->eoa;
  return 0;
}

H5FD_class_t MakeClass() {
  H5FD_class_t c;
  std::memset(&c, 0, sizeof(c));
  c.name = "tact_guarded";
  c.maxaddr = (haddr_t{1} << 63) - 1;  // off_t's range, as sec2's
  c.fc_degree = H5F_CLOSE_WEAK;
  c.fapl_size = sizeof(DriverInfo);  // copied and freed by HDF5 as bytes
  c.open = Open;
  c.close = Close;
  c.cmp = Compare;
  c.query = Query;
  c.get_eoa = GetEoa;
  c.set_eoa = SetEoa;
  c.get_eof = GetEof;
  c.get_handle = GetHandle;
  c.read = Read;
  c.write = Write;
  c.truncate = Truncate;
  const H5FD_mem_t free_lists[H5FD_MEM_NTYPES] = H5FD_FLMAP_DICHOTOMY;  // sec2's: metadata, raw data
  std::copy(std::begin(free_lists), std::end(free_lists), c.fl_map);
  return c;
}

// Registered on first use, and again after the library was shut down and
// restarted (H5close ends every registration).
hid_t DriverId() {
  static const H5FD_class_t kClass = MakeClass();
  static std::mutex mu;
  static hid_t id = H5I_INVALID_HID;
  std::lock_guard<std::mutex> lock(mu);
  if (id < 0 || H5Iis_valid(id) <= 0) id = H5FDregister(&kClass);
  return id;
}

}  // namespace

Status WriteFailure::ToStatus(const std::string& path) const {
  const std::string what = std::string("cannot ") + operation + " checkpoint file '" + path + "'";
  const std::string where =
      bytes > 0 ? " (" + std::to_string(bytes) + " bytes at offset " + std::to_string(offset) + ")" : "";
  if (error == ENOSPC || error == EDQUOT || error == EFBIG) {
    return errors::ResourceExhausted(what, where, ": ", std::strerror(error));
  }
  return errors::Internal(what, where, ": ", std::strerror(error));
}

bool UseGuardedDriver(hid_t fapl, WriteFailure* failure) {
  const hid_t id = DriverId();
  const DriverInfo info{failure};
  return id >= 0 && H5Pset_driver(fapl, id, &info) >= 0;
}

}  // namespace tact::checkpoint_internal

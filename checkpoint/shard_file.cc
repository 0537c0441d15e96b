#include "checkpoint/shard_file.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <unistd.h>

#include <cstring>

#include "checkpoint/checksum.h"
#include "checkpoint/disk_space.h"
#include "checkpoint/guarded_driver.h"

namespace tact::checkpoint_internal {
namespace {

constexpr const char* kFormat = "tact-checkpoint-2";
constexpr const char* kFormat1 = "tact-checkpoint-1";
constexpr const char* kValue = ":value";
constexpr const char* kChecksumAlgorithm =
    "xxh3_64 of the element bytes (strings: uint64 length + bytes each)";

// ---- attributes -------------------------------------------------------------

bool WriteScalarAttr(hid_t obj, const char* name, hid_t type, const void* value) {
  H5Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  H5Handle attr(H5Acreate2(obj, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  return attr.valid() && H5Awrite(attr.get(), type, value) >= 0;
}

// Fixed-length, so that h5dump prints it as a plain string; UTF-8, as
// names are.
bool WriteStringAttr(hid_t obj, const char* name, const std::string& value) {
  H5Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), std::max<size_t>(1, value.size()));
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  return WriteScalarAttr(obj, name, type.get(), value.c_str());
}

bool ReadScalarAttr(hid_t obj, const char* name, hid_t mem_type, void* out) {
  if (H5Aexists(obj, name) <= 0) return false;
  H5Handle attr(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  return attr.valid() && H5Aread(attr.get(), mem_type, out) >= 0;
}

bool ReadStringAttr(hid_t obj, const char* name, std::string* out) {
  if (H5Aexists(obj, name) <= 0) return false;
  H5Handle attr(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  H5Handle type(H5Aget_type(attr.get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) != 0) return false;
  const size_t n = H5Tget_size(type.get());
  if (n == 0 || n > kMaxVariableNameBytes) return false;
  std::string buf(n, '\0');
  if (H5Aread(attr.get(), type.get(), buf.data()) < 0) return false;
  *out = buf.substr(0, buf.find('\0'));
  return true;
}

// ---- writing ----------------------------------------------------------------

bool HasNul(const Tensor& t) {
  const std::string* s = t.data<std::string>();
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    if (s[i].find('\0') != std::string::npos) return true;
  }
  return false;
}

H5Handle DataspaceFor(const TensorShape& shape) {
  if (shape.dims() == 0) return H5Handle(H5Screate(H5S_SCALAR), H5Sclose);
  std::vector<hsize_t> dims(shape.dim_sizes().begin(), shape.dim_sizes().end());
  return H5Handle(H5Screate_simple(shape.dims(), dims.data(), nullptr), H5Sclose);
}

// Writes the element data of `t` to `dset` of type `type`.
herr_t WriteData(hid_t dset, hid_t type, bool byte_strings, const Tensor& t) {
  if (t.NumElements() == 0) return 0;
  if (t.dtype() != DT_STRING) return H5Dwrite(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, t.raw_data());
  const std::string* s = t.data<std::string>();
  if (byte_strings) {
    std::vector<hvl_t> v(t.NumElements());
    for (size_t i = 0; i < v.size(); ++i) v[i] = {s[i].size(), const_cast<char*>(s[i].data())};
    return H5Dwrite(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  }
  std::vector<const char*> v(t.NumElements());
  for (size_t i = 0; i < v.size(); ++i) v[i] = s[i].c_str();
  return H5Dwrite(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
}

Status WriteVariable(hid_t file, hid_t lcpl, hid_t dcpl, const std::string& path, int64_t step,
                     double wall_time, const std::string& name, const Tensor& t) {
  auto fail = [&](const std::string& what) {
    return Hdf5Error("cannot write variable '" + name + "' (" + what + ") to", path, Code::kInternal);
  };
  TACT_RETURN_IF_ERROR(ValidateVariableName(name));
  if (!t.IsInitialized()) return errors::InvalidArgument("variable '", name, "' has no value");
  const bool byte_strings = t.dtype() == DT_STRING && HasNul(t);
  H5Handle type;
  if (byte_strings) {
    type = Hdf5ByteStringType();
  } else {
    TACT_ASSIGN_OR_RETURN(type, Hdf5TypeFor(t.dtype()));
  }
  H5Handle space = DataspaceFor(t.shape());
  // HDF5 refuses to skip the fill of variable-length (string) datasets.
  const hid_t create = t.dtype() == DT_STRING ? H5P_DEFAULT : dcpl;
  H5Handle dset(H5Dcreate2(file, ValuePath(name).c_str(), type.get(), space.get(), lcpl, create,
                           H5P_DEFAULT),
                H5Dclose);
  if (!dset.valid()) return fail("create");
  if (WriteData(dset.get(), type.get(), byte_strings, t) < 0) return fail("data");
  const uint64_t checksum = TensorChecksum(t);
  if (!WriteStringAttr(dset.get(), "name", name) ||
      !WriteStringAttr(dset.get(), "dtype", DataTypeString(t.dtype())) ||
      !WriteScalarAttr(dset.get(), "step", H5T_NATIVE_INT64, &step) ||
      !WriteScalarAttr(dset.get(), "wall_time", H5T_NATIVE_DOUBLE, &wall_time) ||
      !WriteScalarAttr(dset.get(), "checksum", H5T_NATIVE_UINT64, &checksum)) {
    return fail("attributes");
  }
  if (dset.Close() < 0) return fail("close");
  return Status::OK();
}

// An upper bound, give or take HDF5's small structures, on the bytes a
// shard file of `variables` takes with a metadata block of `meta_block`.
uint64_t ShardFileBytes(hsize_t meta_block, const std::vector<std::pair<std::string, Tensor>>& variables) {
  uint64_t bytes = meta_block + (uint64_t{64} << 10);  // the superblock, the root group, slack
  for (const auto& [name, t] : variables) {
    if (t.dtype() == DT_STRING) {
      // Each string goes to HDF5's global heap, with a header of its own.
      for (int64_t i = 0; i < t.NumElements(); ++i) bytes += t.data<std::string>()[i].size() + 32;
    } else {
      bytes += t.TotalBytes();
    }
    bytes += 2048 + name.size();  // a header that outgrew the metadata block
  }
  return bytes + bytes / 64;
}

}  // namespace

Status ValidateVariableName(const std::string& name) {
  if (name.size() > kMaxVariableNameBytes) {
    return errors::InvalidArgument("variable name '", name.substr(0, 64), "...' is longer than ",
                                   kMaxVariableNameBytes, " bytes");
  }
  size_t start = 0;
  while (true) {
    const size_t end = name.find('/', start);
    const std::string part = name.substr(start, end == std::string::npos ? end : end - start);
    if (part.empty() || part == "." || part == "..") {
      return errors::InvalidArgument("variable name '", name,
                                     "' is not a path of non-empty components other than . and ..");
    }
    if (end == std::string::npos) return Status::OK();
    start = end + 1;
  }
}

std::string ValuePath(const std::string& name) {
  std::string path;
  for (char c : name) {
    if (c == '%') {
      path += "%25";
    } else if (c == ':') {
      path += "%3A";
    } else {
      path += c;
    }
  }
  return path + "/" + kValue;
}

namespace {

// WriteShardFile's work, through the guarded driver, which keeps a failed
// write in `*failure` instead of telling HDF5.
Status WriteShard(const std::string& path, int64_t step, int shard, int num_shards, double wall_time,
                  const std::vector<std::pair<std::string, Tensor>>& variables, WriteFailure* failure) {
  // HDF5 places each dataset's header (its attributes included) where it is
  // created, between the data of the one before and its own: a reader then
  // makes one small read per variable scattered over the whole file, cold
  // seeks that cost more than the data (restore ran at 0.3-0.4x a raw read).
  // One metadata block sized for every header keeps them together at the
  // start of the file, read in a few requests. About 1 KiB per variable is
  // used; the rest of the block stays a hole.
  H5Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  if (!UseGuardedDriver(fapl.get(), failure)) {
    return Hdf5Error("cannot set up the file driver for", path, Code::kInternal);
  }
  const hsize_t meta_block = std::min<hsize_t>(8 << 20, (16384 + 2048 * variables.size() + 4095) / 4096 * 4096);
  H5Pset_meta_block_size(fapl.get(), meta_block);
  // HDF5 must never meet a full disk (disk_space.h).
  const uint64_t reserve = ShardFileBytes(meta_block, variables);
  TACT_RETURN_IF_ERROR(CheckFreeSpace(path, reserve));
  H5Handle file(H5Fcreate(path.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl.get()), H5Fclose);
  if (!file.valid()) return Hdf5Error("cannot create checkpoint file", path, Code::kInternal);
  TACT_RETURN_IF_ERROR(ReserveSpace(path, reserve));
  H5Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(lcpl.get(), 1);
  H5Pset_char_encoding(lcpl.get(), H5T_CSET_UTF8);  // h5ls and h5py show the names as written
  // Every byte of a dataset is written by us: filling it first would write
  // the file twice.
  H5Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER);
  const int64_t shard64 = shard, num_shards64 = num_shards;
  if (!WriteStringAttr(file.get(), "format", kFormat) ||
      !WriteScalarAttr(file.get(), "step", H5T_NATIVE_INT64, &step) ||
      !WriteScalarAttr(file.get(), "shard", H5T_NATIVE_INT64, &shard64) ||
      !WriteScalarAttr(file.get(), "num_shards", H5T_NATIVE_INT64, &num_shards64) ||
      !WriteScalarAttr(file.get(), "wall_time", H5T_NATIVE_DOUBLE, &wall_time) ||
      !WriteStringAttr(file.get(), "checksum_algorithm", kChecksumAlgorithm)) {
    return Hdf5Error("cannot write the attributes of", path, Code::kInternal);
  }
  for (const auto& [name, t] : variables) {
    TACT_RETURN_IF_ERROR(
        WriteVariable(file.get(), lcpl.get(), dcpl.get(), path, step, wall_time, name, t));
  }
  // Closing flushes HDF5's metadata; its failure means the file is incomplete.
  if (file.Close() < 0) return Hdf5Error("cannot close (flush) checkpoint file", path, Code::kInternal);
  ReleaseSpaceBeyondEnd(path, reserve);
  return Status::OK();
}

}  // namespace

Status WriteShardFile(const std::string& path, int64_t step, int shard, int num_shards,
                      double wall_time, const std::vector<std::pair<std::string, Tensor>>& variables) {
  WriteFailure failure;
  const Status s = WriteShard(path, step, shard, num_shards, wall_time, variables, &failure);
  // A failed write is the cause of whatever HDF5 said after it.
  return failure.failed() ? failure.ToStatus(path) : s;
}

uint64_t ShardIndexChecksum(const ShardIndex& index) {
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  for (const StoredVariable& v : index.variables) {
    XXH3_64bits_update(&state, v.name.c_str(), v.name.size() + 1);  // with its NUL
    const int64_t header[2] = {v.dtype, v.shape.dims()};
    XXH3_64bits_update(&state, header, sizeof(header));
    XXH3_64bits_update(&state, v.shape.dim_sizes().data(), v.shape.dims() * sizeof(int64_t));
    XXH3_64bits_update(&state, &v.checksum, sizeof(v.checksum));
  }
  return XXH3_64bits_digest(&state);
}

// ---- reading ----------------------------------------------------------------

StatusOr<std::unique_ptr<ShardReader>> ShardReader::Open(const std::string& path) {
  if (::access(path.c_str(), F_OK) != 0) return errors::NotFound("checkpoint file '", path, "' does not exist");
  H5Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.valid()) return Hdf5Error("cannot open checkpoint file (truncated or damaged?)", path);
  std::unique_ptr<ShardReader> r(new ShardReader(path, std::move(file)));
  TACT_RETURN_IF_ERROR(r->ReadIndex());
  return r;
}

namespace {

struct Visit {
  std::vector<std::string> datasets;
  bool other = false;  // named types, or anything but groups and datasets
};

herr_t CollectDatasets(hid_t, const char* name, const H5O_info_t* info, void* out) {
  auto* v = static_cast<Visit*>(out);
  if (info->type == H5O_TYPE_DATASET) {
    v->datasets.push_back(name);
  } else if (info->type != H5O_TYPE_GROUP) {
    v->other = true;
  }
  return 0;
}

// The dtype attribute, checked against the dataset's HDF5 type.
StatusOr<DataType> DatasetDtype(hid_t dset, const std::string& name, const std::string& path) {
  auto bad = [&](const std::string& why) {
    return errors::DataLoss("variable '", name, "' in checkpoint file '", path, "': ", why);
  };
  std::string dtype_name;
  if (!ReadStringAttr(dset, "dtype", &dtype_name)) return bad("no readable dtype attribute");
  StatusOr<DataType> dtype = DataTypeFromString(dtype_name);
  if (!dtype.ok() || IsRefType(*dtype)) return bad("unknown dtype '" + dtype_name + "'");
  StatusOr<H5Handle> expected = Hdf5TypeFor(*dtype);
  if (!expected.ok()) return bad(expected.status().message());
  H5Handle actual(H5Dget_type(dset), H5Tclose);
  bool same = H5Tequal(actual.get(), expected->get()) > 0;
  if (!same && *dtype == DT_STRING) {
    H5Handle bytes = Hdf5ByteStringType();
    same = H5Tequal(actual.get(), bytes.get()) > 0;
  }
  if (!same) return bad("its HDF5 type is not that of dtype " + dtype_name);
  return *dtype;
}

StatusOr<TensorShape> DatasetShape(hid_t dset, const std::string& name, const std::string& path) {
  H5Handle space(H5Dget_space(dset), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0 || rank > 32) {
    return errors::DataLoss("variable '", name, "' in checkpoint file '", path, "': bad dataspace");
  }
  std::vector<hsize_t> dims(rank);
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  std::vector<int64_t> d(dims.begin(), dims.end());
  StatusOr<TensorShape> shape = TensorShape::FromDims(d);
  if (!shape.ok()) {
    return errors::DataLoss("variable '", name, "' in checkpoint file '", path, "': ",
                            shape.status().message());
  }
  return shape;
}

}  // namespace

Status ShardReader::ReadIndex() {
  const hid_t root = file_.get();
  std::string format;
  int64_t shard = -1, num_shards = -1;
  if (!ReadStringAttr(root, "format", &format) || (format != kFormat && format != kFormat1) ||
      !ReadScalarAttr(root, "step", H5T_NATIVE_INT64, &index_.step) ||
      !ReadScalarAttr(root, "shard", H5T_NATIVE_INT64, &shard) ||
      !ReadScalarAttr(root, "num_shards", H5T_NATIVE_INT64, &num_shards) ||
      !ReadScalarAttr(root, "wall_time", H5T_NATIVE_DOUBLE, &index_.wall_time) || shard < 0 ||
      num_shards <= shard || num_shards > 1000000) {
    return Hdf5Error("not a tact checkpoint shard (format, step or shard attributes)", path_);
  }
  index_.shard = static_cast<int>(shard);
  index_.num_shards = static_cast<int>(num_shards);
  format_ = format == kFormat ? 2 : 1;
  std::vector<std::pair<std::string, std::string>> variables;
  TACT_RETURN_IF_ERROR(ListVariables(&variables));
  for (const auto& [name, dataset] : variables) {
    H5Handle dset(H5Dopen2(root, dataset.c_str(), H5P_DEFAULT), H5Dclose);
    if (!dset.valid()) return Hdf5Error("cannot open variable '" + name + "' of checkpoint file", path_);
    StoredVariable v;
    v.name = name;
    v.shard = index_.shard;
    TACT_ASSIGN_OR_RETURN(v.dtype, DatasetDtype(dset.get(), name, path_));
    TACT_ASSIGN_OR_RETURN(v.shape, DatasetShape(dset.get(), name, path_));
    if (!ReadScalarAttr(dset.get(), "checksum", H5T_NATIVE_UINT64, &v.checksum)) {
      return errors::DataLoss("variable '", name, "' in checkpoint file '", path_, "' has no checksum");
    }
    index_.variables.push_back(std::move(v));
  }
  std::sort(index_.variables.begin(), index_.variables.end(),
            [](const StoredVariable& a, const StoredVariable& b) { return a.name < b.name; });
  return Status::OK();
}

Status ShardReader::ListVariables(std::vector<std::pair<std::string, std::string>>* out) const {
  Visit visit;
  if (H5Ovisit2(file_.get(), H5_INDEX_NAME, H5_ITER_INC, CollectDatasets, &visit, H5O_INFO_BASIC) < 0) {
    return Hdf5Error("cannot list the variables of checkpoint file", path_);
  }
  if (visit.other) return errors::DataLoss("checkpoint file '", path_, "' holds objects other than groups and datasets");
  for (const std::string& dataset : visit.datasets) {
    if (format_ == 1) {
      out->emplace_back(dataset, dataset);
      continue;
    }
    // The name attribute says whose value it is; its path must agree.
    H5Handle dset(H5Dopen2(file_.get(), dataset.c_str(), H5P_DEFAULT), H5Dclose);
    std::string name;
    if (!dset.valid() || !ReadStringAttr(dset.get(), "name", &name) ||
        !ValidateVariableName(name).ok() || ValuePath(name) != dataset) {
      return errors::DataLoss("checkpoint file '", path_, "': dataset '", dataset,
                              "' is not a variable's value (its name attribute is missing or does "
                              "not match its path)");
    }
    out->emplace_back(name, dataset);
  }
  return Status::OK();
}

std::string ShardReader::DatasetOf(const std::string& name) const {
  return format_ == 1 ? name : ValuePath(name);
}

namespace {

herr_t ReadStrings(hid_t dset, bool byte_strings, Tensor* t) {
  std::string* out = t->data<std::string>();
  const size_t n = t->NumElements();
  H5Handle space(H5Dget_space(dset), H5Sclose);
  if (byte_strings) {
    H5Handle type = Hdf5ByteStringType();
    std::vector<hvl_t> v(n);
    if (H5Dread(dset, type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0) return -1;
    for (size_t i = 0; i < n; ++i) out[i].assign(static_cast<const char*>(v[i].p), v[i].len);
    return H5Dvlen_reclaim(type.get(), space.get(), H5P_DEFAULT, v.data());
  }
  StatusOr<H5Handle> type = Hdf5TypeFor(DT_STRING);
  std::vector<char*> v(n);
  if (H5Dread(dset, type->get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0) return -1;
  for (size_t i = 0; i < n; ++i) out[i] = v[i] != nullptr ? v[i] : "";
  return H5Dvlen_reclaim(type->get(), space.get(), H5P_DEFAULT, v.data());
}

}  // namespace

StatusOr<std::vector<ByteExtent>> ShardReader::PlainDataExtents() const {
  std::vector<ByteExtent> out;
  for (const StoredVariable& v : index_.variables) {
    if (v.dtype == DT_STRING) continue;
    H5Handle dset(H5Dopen2(file_.get(), DatasetOf(v.name).c_str(), H5P_DEFAULT), H5Dclose);
    if (!dset.valid()) return Hdf5Error("cannot open variable '" + v.name + "' of checkpoint file", path_);
    H5Handle plist(H5Dget_create_plist(dset.get()), H5Pclose);
    if (H5Pget_layout(plist.get()) != H5D_CONTIGUOUS) continue;  // compact: inside its header
    const haddr_t offset = H5Dget_offset(dset.get());
    const hsize_t bytes = H5Dget_storage_size(dset.get());
    if (offset == HADDR_UNDEF || bytes == 0) continue;
    out.push_back({static_cast<int64_t>(offset), static_cast<int64_t>(bytes)});
  }
  std::sort(out.begin(), out.end(),
            [](const ByteExtent& a, const ByteExtent& b) { return a.offset < b.offset; });
  for (size_t i = 1; i < out.size(); ++i) {
    if (out[i].offset < out[i - 1].offset + out[i - 1].length) {
      return errors::DataLoss("checkpoint file '", path_, "': two variables' data overlap at byte ",
                              out[i].offset);
    }
  }
  return out;
}

StatusOr<Tensor> ShardReader::Read(const StoredVariable& v) const {
  auto bad = [&](const std::string& why) {
    return errors::DataLoss("variable '", v.name, "' in checkpoint file '", path_, "': ", why);
  };
  H5Handle dset(H5Dopen2(file_.get(), DatasetOf(v.name).c_str(), H5P_DEFAULT), H5Dclose);
  if (!dset.valid()) return Hdf5Error("cannot open variable '" + v.name + "' of checkpoint file", path_);
  TACT_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(CpuAllocator(), v.dtype, v.shape));
  if (t.NumElements() > 0) {
    herr_t r;
    if (v.dtype == DT_STRING) {
      H5Handle type(H5Dget_type(dset.get()), H5Tclose);
      r = ReadStrings(dset.get(), H5Tget_class(type.get()) == H5T_VLEN, &t);
    } else {
      TACT_ASSIGN_OR_RETURN(H5Handle type, Hdf5TypeFor(v.dtype));
      r = H5Dread(dset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, t.raw_data());
    }
    if (r < 0) return Hdf5Error("cannot read variable '" + v.name + "' of checkpoint file", path_);
  }
  const uint64_t checksum = TensorChecksum(t);
  if (checksum != v.checksum) {
    return bad("checksum mismatch (stored " + ChecksumHex(v.checksum) + ", data has " +
               ChecksumHex(checksum) + "): the file is corrupt");
  }
  return t;
}

}  // namespace tact::checkpoint_internal

#include "graph/npy.h"

#include <cstring>
#include <fstream>
#include <sstream>

namespace tact {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

const char* NpyDescr(DataType t) {
  switch (t) {
    case DT_FLOAT: return "<f4";
    case DT_DOUBLE: return "<f8";
    case DT_HALF: return "<f2";
    case DT_INT8: return "|i1";
    case DT_INT16: return "<i2";
    case DT_INT32: return "<i4";
    case DT_INT64: return "<i8";
    case DT_UINT8: return "|u1";
    case DT_UINT16: return "<u2";
    case DT_UINT32: return "<u4";
    case DT_UINT64: return "<u8";
    case DT_BOOL: return "|b1";
    case DT_COMPLEX64: return "<c8";
    case DT_COMPLEX128: return "<c16";
    default: return nullptr;
  }
}

StatusOr<DataType> DtypeFromDescr(const std::string& d, const std::string& what) {
  // '<' little-endian, '|' not applicable, '=' native (little on every host tact runs on).
  if (d.size() >= 2 && (d[0] == '<' || d[0] == '|' || d[0] == '=')) {
    const std::string body = d.substr(1);
    for (DataType t : AllDataTypes()) {
      const char* descr = NpyDescr(t);
      if (descr != nullptr && body == descr + 1) return t;
    }
  }
  return errors::InvalidArgument(what, ": unsupported dtype '", d,
                                 "' (big-endian, object and string dtypes are not supported)");
}

// Finds `'key': value` in the header dict and returns the raw value text.
StatusOr<std::string> DictValue(const std::string& header, const std::string& key,
                                const std::string& what) {
  const std::string quoted[] = {"'" + key + "'", "\"" + key + "\""};
  size_t pos = std::string::npos;
  for (const std::string& q : quoted) {
    pos = header.find(q);
    if (pos != std::string::npos) {
      pos += q.size();
      break;
    }
  }
  if (pos == std::string::npos) return errors::InvalidArgument(what, ": header lacks '", key, "'");
  pos = header.find(':', pos);
  if (pos == std::string::npos) return errors::InvalidArgument(what, ": malformed header");
  ++pos;
  while (pos < header.size() && header[pos] == ' ') ++pos;
  size_t end;
  if (pos < header.size() && header[pos] == '(') {
    end = header.find(')', pos);
    if (end == std::string::npos) return errors::InvalidArgument(what, ": malformed shape");
    ++end;
  } else {
    end = header.find_first_of(",}", pos);
    if (end == std::string::npos) return errors::InvalidArgument(what, ": malformed header");
  }
  return header.substr(pos, end - pos);
}

StatusOr<TensorShape> ParseShapeTuple(const std::string& text, const std::string& what) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') {
    return errors::InvalidArgument(what, ": malformed shape '", text, "'");
  }
  std::vector<int64_t> dims;
  std::stringstream ss(text.substr(1, text.size() - 2));
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t b = item.find_first_not_of(' ');
    if (b == std::string::npos) continue;  // the trailing comma of "(3,)"
    item = item.substr(b, item.find_last_not_of(' ') - b + 1);
    if (item.empty() || item.size() > 18 || item.find_first_not_of("0123456789") != std::string::npos) {
      return errors::InvalidArgument(what, ": malformed dimension '", item, "' in shape ", text);
    }
    dims.push_back(std::stoll(item));
  }
  StatusOr<TensorShape> s = TensorShape::FromDims(dims);
  if (!s.ok()) return s.status().WithPrefix(what + ": ");
  return s;
}

std::string Strip(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\'' || s.back() == '"')) s.pop_back();
  size_t b = s.find_first_not_of(" '\"");
  return b == std::string::npos ? "" : s.substr(b);
}

}  // namespace

StatusOr<Tensor> ParseNpy(const std::string& bytes, const std::string& what) {
  if (bytes.size() < 10 || std::memcmp(bytes.data(), kMagic, 6) != 0) {
    return errors::InvalidArgument(what, ": not a .npy file (bad magic)");
  }
  const int major = static_cast<unsigned char>(bytes[6]);
  size_t header_len, offset;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return errors::DataLoss(what, ": truncated header");
    header_len = 0;
    for (int i = 0; i < 4; ++i) header_len |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    offset = 12;
  } else {
    return errors::InvalidArgument(what, ": unsupported .npy version ", major);
  }
  if (header_len > bytes.size() - offset) return errors::DataLoss(what, ": truncated header");
  const std::string header = bytes.substr(offset, header_len);
  TACT_ASSIGN_OR_RETURN(std::string descr, DictValue(header, "descr", what));
  TACT_ASSIGN_OR_RETURN(std::string fortran, DictValue(header, "fortran_order", what));
  TACT_ASSIGN_OR_RETURN(std::string shape_text, DictValue(header, "shape", what));
  TACT_ASSIGN_OR_RETURN(DataType dtype, DtypeFromDescr(Strip(descr), what));
  if (Strip(fortran) != "False") {
    return errors::InvalidArgument(what, ": Fortran-order arrays are not supported");
  }
  TACT_ASSIGN_OR_RETURN(TensorShape shape, ParseShapeTuple(shape_text, what));
  const size_t data_offset = offset + header_len;
  const size_t elem = DataTypeSize(dtype);
  const uint64_t n = static_cast<uint64_t>(shape.num_elements());
  const size_t have = bytes.size() - data_offset;
  if (n > have / elem || n * elem != have) {
    return errors::DataLoss(what, ": shape ", shape.DebugString(), " of ", DataTypeString(dtype),
                            " needs ", n * elem, " bytes of data, the file has ", have);
  }
  TACT_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(CpuAllocator(), dtype, shape));
  if (have > 0) std::memcpy(t.raw_data(), bytes.data() + data_offset, have);
  if (dtype == DT_BOOL) {
    // Any byte other than 0 or 1 would be an invalid C++ bool.
    uint8_t* p = static_cast<uint8_t*>(t.raw_data());
    for (uint64_t i = 0; i < n; ++i) p[i] = p[i] != 0;
  }
  return t;
}

namespace {

// The bytes before the data: magic, version, header length and header.
StatusOr<std::string> NpyPreamble(const Tensor& t) {
  const char* descr = NpyDescr(t.dtype());
  if (descr == nullptr) {
    return errors::InvalidArgument("a ", DataTypeString(t.dtype()), " tensor has no .npy form");
  }
  std::string shape = "(";
  for (int i = 0; i < t.dims(); ++i) shape += (i ? ", " : "") + std::to_string(t.dim_size(i));
  shape += t.dims() == 1 ? ",)" : ")";  // Python's one-element tuple
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces so the data starts at a multiple of 64, ending in '\n'.
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic, 6);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  return out;
}

}  // namespace

StatusOr<std::string> SerializeNpy(const Tensor& t) {
  TACT_ASSIGN_OR_RETURN(std::string out, NpyPreamble(t));
  out.append(static_cast<const char*>(t.raw_data()), t.TotalBytes());
  return out;
}

StatusOr<Tensor> ReadNpyFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return errors::NotFound("cannot open '", path, "'");
  std::ostringstream ss;
  ss << f.rdbuf();
  return ParseNpy(ss.str(), "'" + path + "'");
}

// The data goes to the file straight from the tensor: a copy of a 4 GiB
// fetch in memory first ended `tact run` with std::bad_alloc.
Status WriteNpyFile(const std::string& path, const Tensor& t) {
  TACT_ASSIGN_OR_RETURN(const std::string preamble, NpyPreamble(t));
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return errors::PermissionDenied("cannot write '", path, "'");
  f.write(preamble.data(), static_cast<std::streamsize>(preamble.size()));
  f.write(static_cast<const char*>(t.raw_data()), static_cast<std::streamsize>(t.TotalBytes()));
  f.close();
  if (!f) return errors::DataLoss("writing '", path, "' failed");
  return Status::OK();
}

}  // namespace tact

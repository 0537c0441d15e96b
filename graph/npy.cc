#include "graph/npy.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "graph/printable.h"

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

// How the file stores one element. NumPy's fixed-width strings ('S', bytes
// padded with NULs; 'U', UTF-32 code points padded with zeros) are tact's
// DT_STRING; their trailing padding is not part of the value, as in NumPy.
struct NpyItem {
  DataType dtype = DT_INVALID;
  size_t size = 0;  // bytes per element in the file
  char text = 0;    // 'S' or 'U' for strings, else 0
};

StatusOr<NpyItem> ItemFromDescr(const std::string& d, const std::string& what) {
  // '<' little-endian, '|' not applicable, '=' native (little on every host tact runs on).
  if (d.size() >= 2 && (d[0] == '<' || d[0] == '|' || d[0] == '=')) {
    const std::string body = d.substr(1);
    for (DataType t : AllDataTypes()) {
      const char* descr = NpyDescr(t);
      if (descr != nullptr && body == descr + 1) return NpyItem{t, DataTypeSize(t), 0};
    }
    const std::string width = body.substr(1);
    if ((body[0] == 'S' || body[0] == 'U') && !width.empty() && width.size() <= 9 &&
        width.find_first_not_of("0123456789") == std::string::npos && std::stoul(width) > 0) {
      return NpyItem{DT_STRING, std::stoul(width) * (body[0] == 'U' ? 4 : 1), body[0]};
    }
  }
  return errors::InvalidArgument(what, ": unsupported dtype '", Printable(d),
                                 "' (big-endian and object dtypes are not supported)");
}

// Appends code point `c` as UTF-8; false if it is not a Unicode scalar value.
bool AppendUtf8(uint32_t c, std::string* out) {
  if (c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) return false;
  if (c < 0x80) {
    *out += static_cast<char>(c);
  } else if (c < 0x800) {
    *out += static_cast<char>(0xc0 | (c >> 6));
    *out += static_cast<char>(0x80 | (c & 0x3f));
  } else if (c < 0x10000) {
    *out += static_cast<char>(0xe0 | (c >> 12));
    *out += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
    *out += static_cast<char>(0x80 | (c & 0x3f));
  } else {
    *out += static_cast<char>(0xf0 | (c >> 18));
    *out += static_cast<char>(0x80 | ((c >> 12) & 0x3f));
    *out += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
    *out += static_cast<char>(0x80 | (c & 0x3f));
  }
  return true;
}

// The strings of a string array's data, its padding dropped.
Status DecodeStrings(const NpyItem& item, const char* data, Tensor* t, const std::string& what) {
  std::string* out = t->data<std::string>();
  for (int64_t i = 0; i < t->NumElements(); ++i) {
    const char* e = data + i * item.size;
    if (item.text == 'S') {
      size_t n = item.size;
      while (n > 0 && e[n - 1] == '\0') --n;
      out[i].assign(e, n);
      continue;
    }
    size_t n = item.size / 4;
    auto code_point = [e](size_t k) {
      uint32_t c;
      std::memcpy(&c, e + 4 * k, 4);
      return c;
    };
    while (n > 0 && code_point(n - 1) == 0) --n;
    for (size_t k = 0; k < n; ++k) {
      if (!AppendUtf8(code_point(k), &out[i])) {
        return errors::InvalidArgument(what, ": element ", i, " holds ", code_point(k),
                                       ", which is not a Unicode code point");
      }
    }
  }
  return Status::OK();
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
    return errors::InvalidArgument(what, ": malformed shape '", Printable(text), "'");
  }
  std::vector<int64_t> dims;
  std::stringstream ss(text.substr(1, text.size() - 2));
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t b = item.find_first_not_of(' ');
    if (b == std::string::npos) continue;  // the trailing comma of "(3,)"
    item = item.substr(b, item.find_last_not_of(' ') - b + 1);
    if (item.empty() || item.size() > 18 || item.find_first_not_of("0123456789") != std::string::npos) {
      return errors::InvalidArgument(what, ": malformed dimension '", Printable(item), "' in shape ",
                                     Printable(text));
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

// What a .npy header says, and where the data begins.
struct NpyLayout {
  NpyItem item;
  TensorShape shape;
  size_t data_offset = 0;
  uint64_t data_bytes = 0;  // what the shape and dtype need
};

// Where the header's text starts and how long it is, from the file's first
// 12 bytes (10 for version 1).
struct HeaderSpan {
  size_t offset = 0, length = 0;
  size_t end() const { return offset + length; }
};

StatusOr<HeaderSpan> ParseHeaderSpan(const std::string& bytes, const std::string& what) {
  if (bytes.size() < 10 || std::memcmp(bytes.data(), kMagic, 6) != 0) {
    return errors::InvalidArgument(what, ": not a .npy file (bad magic)");
  }
  const int major = static_cast<unsigned char>(bytes[6]);
  HeaderSpan span;
  if (major == 1) {
    span.length = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    span.offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return errors::DataLoss(what, ": truncated header");
    for (int i = 0; i < 4; ++i) {
      span.length |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    }
    span.offset = 12;
  } else {
    return errors::InvalidArgument(what, ": unsupported .npy version ", major);
  }
  return span;
}

// The layout from the file's bytes up to the end of its header at least
// (the whole file will do).
StatusOr<NpyLayout> ParseLayout(const std::string& bytes, const std::string& what) {
  TACT_ASSIGN_OR_RETURN(const HeaderSpan span, ParseHeaderSpan(bytes, what));
  const size_t offset = span.offset, header_len = span.length;
  if (header_len > bytes.size() - offset) return errors::DataLoss(what, ": truncated header");
  const std::string header = bytes.substr(offset, header_len);
  TACT_ASSIGN_OR_RETURN(std::string descr, DictValue(header, "descr", what));
  TACT_ASSIGN_OR_RETURN(std::string fortran, DictValue(header, "fortran_order", what));
  TACT_ASSIGN_OR_RETURN(std::string shape_text, DictValue(header, "shape", what));
  NpyLayout layout;
  TACT_ASSIGN_OR_RETURN(layout.item, ItemFromDescr(Strip(descr), what));
  if (Strip(fortran) != "False") {
    return errors::InvalidArgument(what, ": Fortran-order arrays are not supported");
  }
  TACT_ASSIGN_OR_RETURN(layout.shape, ParseShapeTuple(shape_text, what));
  layout.data_offset = offset + header_len;
  const uint64_t n = static_cast<uint64_t>(layout.shape.num_elements());
  if (n > 0 && layout.item.size > UINT64_MAX / n) {
    return errors::InvalidArgument(what, ": shape ", layout.shape.DebugString(), " of ",
                                   Printable(Strip(descr)), " is too large");
  }
  layout.data_bytes = n * layout.item.size;
  return layout;
}

// DataLoss unless `have` bytes of data are what the layout needs.
Status CheckDataSize(const NpyLayout& layout, uint64_t have, const std::string& what) {
  if (layout.data_bytes != have) {
    return errors::DataLoss(what, ": shape ", layout.shape.DebugString(), " of ",
                            DataTypeString(layout.item.dtype), " needs ", layout.data_bytes,
                            " bytes of data, the file has ", have);
  }
  return Status::OK();
}

// Any byte other than 0 or 1 would be an invalid C++ bool.
void NormalizeBools(Tensor* t) {
  if (t->dtype() != DT_BOOL) return;
  uint8_t* p = static_cast<uint8_t*>(t->raw_data());
  for (int64_t i = 0; i < t->NumElements(); ++i) p[i] = p[i] != 0;
}

}  // namespace

StatusOr<Tensor> ParseNpy(const std::string& bytes, const std::string& what) {
  TACT_ASSIGN_OR_RETURN(const NpyLayout layout, ParseLayout(bytes, what));
  TACT_RETURN_IF_ERROR(CheckDataSize(layout, bytes.size() - layout.data_offset, what));
  TACT_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(CpuAllocator(), layout.item.dtype, layout.shape));
  const char* data = bytes.data() + layout.data_offset;
  if (layout.item.text != 0) {
    TACT_RETURN_IF_ERROR(DecodeStrings(layout.item, data, &t, what));
  } else if (layout.data_bytes > 0) {
    std::memcpy(t.raw_data(), data, layout.data_bytes);
  }
  NormalizeBools(&t);
  return t;
}

bool HasNpyForm(DataType t) { return t == DT_STRING || NpyDescr(t) != nullptr; }

namespace {

// Bytes per string in the file: the longest string's, at least 1 (NumPy's
// narrowest 'S').
size_t StringWidth(const Tensor& t) {
  size_t width = 1;
  const std::string* s = t.data<std::string>();
  for (int64_t i = 0; i < t.NumElements(); ++i) width = std::max(width, s[i].size());
  return width;
}

// A string tensor's data as the file holds it, each string padded with NULs.
std::string PaddedStrings(const Tensor& t) {
  const size_t width = StringWidth(t);
  std::string out(static_cast<size_t>(t.NumElements()) * width, '\0');
  const std::string* s = t.data<std::string>();
  for (int64_t i = 0; i < t.NumElements(); ++i) s[i].copy(out.data() + i * width, s[i].size());
  return out;
}

// The bytes before the data: magic, version, header length and header.
StatusOr<std::string> NpyPreamble(const Tensor& t) {
  if (!HasNpyForm(t.dtype())) {
    return errors::InvalidArgument("a ", DataTypeString(t.dtype()), " tensor has no .npy form");
  }
  const std::string descr =
      t.dtype() == DT_STRING ? "|S" + std::to_string(StringWidth(t)) : NpyDescr(t.dtype());
  std::string shape = "(";
  for (int i = 0; i < t.dims(); ++i) shape += (i ? ", " : "") + std::to_string(t.dim_size(i));
  shape += t.dims() == 1 ? ",)" : ")";  // Python's one-element tuple
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
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
  if (t.dtype() == DT_STRING) return out + PaddedStrings(t);
  out.append(static_cast<const char*>(t.raw_data()), t.TotalBytes());
  return out;
}

// The data comes from the file straight into the tensor: reading the
// file into a string first held a feed three times in memory.
StatusOr<Tensor> ReadNpyFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) return errors::NotFound("cannot open '", path, "'");
  const std::string what = "'" + path + "'";
  const uint64_t size = static_cast<uint64_t>(f.tellg());
  // The first 12 bytes say how long the header is; then the bytes up to its
  // end, as many as the file has.
  auto read_head = [&](uint64_t bytes) {
    std::string head(static_cast<size_t>(std::min(size, bytes)), '\0');
    f.seekg(0);
    f.read(head.data(), static_cast<std::streamsize>(head.size()));
    return head;
  };
  TACT_ASSIGN_OR_RETURN(const HeaderSpan span, ParseHeaderSpan(read_head(12), what));
  const std::string preamble = read_head(span.end());
  if (!f) return errors::DataLoss("reading ", what, " failed");
  TACT_ASSIGN_OR_RETURN(const NpyLayout layout, ParseLayout(preamble, what));
  TACT_RETURN_IF_ERROR(CheckDataSize(layout, size - layout.data_offset, what));
  TACT_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(CpuAllocator(), layout.item.dtype, layout.shape));
  std::string text;  // a string array's padded data, decoded below
  if (layout.item.text != 0) text.resize(layout.data_bytes);
  f.read(layout.item.text != 0 ? text.data() : static_cast<char*>(t.raw_data()),
         static_cast<std::streamsize>(layout.data_bytes));
  if (!f) return errors::DataLoss("reading the data of ", what, " failed");
  if (layout.item.text != 0) TACT_RETURN_IF_ERROR(DecodeStrings(layout.item, text.data(), &t, what));
  NormalizeBools(&t);
  return t;
}

// The data goes to the file straight from the tensor: a copy of a 4 GiB
// fetch in memory first ended `tact run` with std::bad_alloc.
Status WriteNpyFile(const std::string& path, const Tensor& t) {
  TACT_ASSIGN_OR_RETURN(const std::string preamble, NpyPreamble(t));
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return errors::PermissionDenied("cannot write '", path, "'");
  f.write(preamble.data(), static_cast<std::streamsize>(preamble.size()));
  if (t.dtype() == DT_STRING) {
    const std::string data = PaddedStrings(t);
    f.write(data.data(), static_cast<std::streamsize>(data.size()));
  } else {
    f.write(static_cast<const char*>(t.raw_data()), static_cast<std::streamsize>(t.TotalBytes()));
  }
  f.close();
  if (!f) {
    // A part of an array would read as a truncated file at best: none is
    // left. Only a plain file goes (a device such as /dev/full stays).
    const std::string why = std::strerror(errno);
    struct stat st;
    if (stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) std::remove(path.c_str());
    return errors::DataLoss("writing '", path, "' failed: ", why);
  }
  return Status::OK();
}

}  // namespace tact

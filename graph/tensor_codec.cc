#include "graph/tensor_codec.h"

#include <capnp/serialize.h>
#include <kj/exception.h>

#include <cstring>

namespace tact {
namespace {

// A capnp List/Data holds at most 2^29 - 1 elements; a tensor beyond that
// cannot travel as one message and is refused rather than truncated.
constexpr uint64_t kMaxListElements = (uint64_t{1} << 29) - 1;

std::string DimsString(capnp::List<int64_t>::Reader dims) {
  std::string s = "[";
  for (uint32_t i = 0; i < dims.size() && i < 8; ++i) {
    if (i) s += ",";
    s += std::to_string(dims[i]);
  }
  if (dims.size() > 8) s += ",...";
  return s + "]";
}

Status CheckTensorDtype(int32_t raw) {
  const DataType dtype = static_cast<DataType>(raw);
  if (raw <= 0 || IsRefType(dtype) || !IsValidDataType(dtype)) {
    return errors::InvalidArgument("tensor has unknown dtype ", raw);
  }
  if (dtype == DT_RESOURCE) {
    return errors::InvalidArgument("a resource tensor cannot be serialised");
  }
  return Status::OK();
}

StatusOr<TensorShape> ReadTensorShape(capnp::List<int64_t>::Reader dims) {
  if (dims.size() > static_cast<uint32_t>(kMaxTensorRank)) {
    return errors::InvalidArgument("tensor shape has ", dims.size(), " dimensions, more than ",
                                   kMaxTensorRank);
  }
  std::vector<int64_t> v;
  v.reserve(dims.size());
  for (int64_t d : dims) v.push_back(d);
  StatusOr<TensorShape> shape = TensorShape::FromDims(v);
  if (!shape.ok()) return shape.status().WithPrefix("tensor shape " + DimsString(dims) + ": ");
  return shape;
}

StatusOr<Tensor> ReadStrings(const TensorShape& shape, schema::TensorProto::Reader in) {
  if (in.hasContent() && in.getContent().size() != 0) {
    return errors::InvalidArgument("string tensor has ", in.getContent().size(),
                                   " content bytes; strings go in stringVal");
  }
  auto strings = in.getStringVal();
  const int64_t n = shape.num_elements();
  if (static_cast<int64_t>(strings.size()) != n) {
    return errors::InvalidArgument("string tensor of shape ", shape.DebugString(), " needs ", n,
                                   " strings, the message has ", strings.size());
  }
  TACT_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(CpuAllocator(), DT_STRING, shape));
  std::string* out = t.data<std::string>();
  for (uint32_t i = 0; i < strings.size(); ++i) {
    capnp::Data::Reader s = strings[i];
    out[i].assign(reinterpret_cast<const char*>(s.begin()), s.size());
  }
  return t;
}

StatusOr<Tensor> ReadNumbers(DataType dtype, const TensorShape& shape,
                             schema::TensorProto::Reader in) {
  if (in.hasStringVal() && in.getStringVal().size() != 0) {
    return errors::InvalidArgument(DataTypeString(dtype), " tensor carries ",
                                   in.getStringVal().size(), " strings");
  }
  const uint64_t n = static_cast<uint64_t>(shape.num_elements());
  const uint64_t elem = DataTypeSize(dtype);
  capnp::Data::Reader content = in.getContent();
  // n * elem may overflow even when n itself fits; compare by division.
  if (content.size() % elem != 0 || content.size() / elem != n) {
    return errors::InvalidArgument(DataTypeString(dtype), " tensor of shape ", shape.DebugString(),
                                   " needs ", n, " x ", elem, " bytes, the message has ",
                                   content.size());
  }
  TACT_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(CpuAllocator(), dtype, shape));
  if (dtype == DT_BOOL) {
    // Any nonzero byte is true: a bool holding 2 would be undefined behaviour.
    bool* out = t.data<bool>();
    for (uint64_t i = 0; i < n; ++i) out[i] = content[i] != 0;
  } else if (n > 0) {
    std::memcpy(t.raw_data(), content.begin(), content.size());
  }
  return t;
}

}  // namespace

Status TensorToProto(const Tensor& t, schema::TensorProto::Builder out) {
  if (!t.IsInitialized()) return errors::InvalidArgument("cannot serialise an uninitialised tensor");
  TACT_RETURN_IF_ERROR(CheckTensorDtype(t.dtype()));
  const int64_t n = t.NumElements();
  if (static_cast<uint64_t>(n) > kMaxListElements) {
    return errors::InvalidArgument("tensor of shape ", t.shape().DebugString(),
                                   " has too many elements for one message");
  }
  out.setDtype(t.dtype());
  auto dims = out.initShape(static_cast<unsigned>(t.dims()));
  for (int i = 0; i < t.dims(); ++i) dims.set(i, t.dim_size(i));
  if (t.dtype() == DT_STRING) {
    const std::string* s = t.data<std::string>();
    auto list = out.initStringVal(static_cast<unsigned>(n));
    for (int64_t i = 0; i < n; ++i) {
      if (s[i].size() > kMaxListElements) {
        return errors::InvalidArgument("string ", i, " of a tensor is longer than 512 MiB");
      }
      list.set(static_cast<unsigned>(i),
               capnp::Data::Reader(reinterpret_cast<const kj::byte*>(s[i].data()), s[i].size()));
    }
    return Status::OK();
  }
  const size_t bytes = t.TotalBytes();
  if (bytes > kMaxListElements) {
    return errors::InvalidArgument("tensor of ", bytes, " bytes is larger than one message (512 MiB)");
  }
  capnp::Data::Builder content = out.initContent(static_cast<unsigned>(bytes));
  if (t.dtype() == DT_BOOL) {
    const bool* b = t.data<bool>();
    for (int64_t i = 0; i < n; ++i) content[i] = b[i] ? 1 : 0;
  } else if (bytes > 0) {
    std::memcpy(content.begin(), t.raw_data(), bytes);
  }
  return Status::OK();
}

StatusOr<Tensor> TensorFromProto(schema::TensorProto::Reader in) {
  TACT_RETURN_IF_ERROR(CheckTensorDtype(in.getDtype()));
  const DataType dtype = static_cast<DataType>(in.getDtype());
  TACT_ASSIGN_OR_RETURN(TensorShape shape, ReadTensorShape(in.getShape()));
  if (dtype == DT_STRING) return ReadStrings(shape, in);
  return ReadNumbers(dtype, shape, in);
}

void ShapeToProto(const PartialTensorShape& shape, schema::TensorShapeProto::Builder out) {
  out.setUnknownRank(shape.unknown_rank());
  if (shape.unknown_rank()) return;
  auto dims = out.initDims(static_cast<unsigned>(shape.dims()));
  for (int i = 0; i < shape.dims(); ++i) dims.set(i, shape.dim_size(i));
}

StatusOr<PartialTensorShape> ShapeFromProto(schema::TensorShapeProto::Reader in) {
  auto dims = in.getDims();
  if (in.getUnknownRank()) {
    if (dims.size() != 0) {
      return errors::InvalidArgument("shape of unknown rank lists ", dims.size(), " dimensions");
    }
    return PartialTensorShape::Unknown();
  }
  if (dims.size() > static_cast<uint32_t>(kMaxTensorRank)) {
    return errors::InvalidArgument("shape has ", dims.size(), " dimensions, more than ",
                                   kMaxTensorRank);
  }
  std::vector<int64_t> v;
  v.reserve(dims.size());
  for (uint32_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < -1) {
      return errors::InvalidArgument("dimension ", i, " of shape ", DimsString(dims), " is ",
                                     dims[i], " (only -1, unknown, may be negative)");
    }
    v.push_back(dims[i]);
  }
  return PartialTensorShape(std::move(v));
}

Status ReadCapnpMessage(std::string_view bytes, const char* what,
                        const std::function<Status(capnp::MessageReader&)>& read) {
  if (bytes.empty()) return errors::DataLoss(what, ": the buffer is empty");
  if (bytes.size() % sizeof(capnp::word) != 0) {
    return errors::DataLoss(what, ": buffer of ", bytes.size(),
                            " bytes is not a whole number of 8-byte words (truncated?)");
  }
  // capnp reads words in place; a std::string's bytes carry no alignment
  // promise, so they are copied into an aligned word array first.
  const size_t words = bytes.size() / sizeof(capnp::word);
  kj::Array<capnp::word> aligned = kj::heapArray<capnp::word>(words);
  std::memcpy(aligned.begin(), bytes.data(), bytes.size());
  capnp::ReaderOptions options;
  options.traversalLimitInWords = kTraversalFactor * words + 1024;
  options.nestingLimit = kNestingLimit;
  try {
    capnp::FlatArrayMessageReader reader(aligned.asPtr(), options);
    if (reader.getEnd() != aligned.end()) {
      return errors::DataLoss(what, ": ", (aligned.end() - reader.getEnd()) * sizeof(capnp::word),
                              " bytes follow the end of the message");
    }
    return read(reader);
  } catch (const kj::Exception& e) {
    return errors::DataLoss(what, ": malformed Cap'n Proto message: ", e.getDescription().cStr());
  }
}

std::string MessageToBytes(capnp::MessageBuilder& message) {
  kj::Array<capnp::word> words = capnp::messageToFlatArray(message);
  kj::ArrayPtr<const kj::byte> b = words.asBytes();
  return std::string(reinterpret_cast<const char*>(b.begin()), b.size());
}

StatusOr<std::string> SerializeTensor(const Tensor& t) {
  try {
    capnp::MallocMessageBuilder message;
    TACT_RETURN_IF_ERROR(TensorToProto(t, message.initRoot<schema::TensorProto>()));
    return MessageToBytes(message);
  } catch (const kj::Exception& e) {
    return errors::InvalidArgument("tensor cannot be serialised: ", e.getDescription().cStr());
  }
}

StatusOr<Tensor> ParseTensor(std::string_view bytes) {
  Tensor out;
  Status s = ReadCapnpMessage(bytes, "tensor", [&](capnp::MessageReader& r) -> Status {
    TACT_ASSIGN_OR_RETURN(out, TensorFromProto(r.getRoot<schema::TensorProto>()));
    return Status::OK();
  });
  if (!s.ok()) return s;
  return out;
}

}  // namespace tact

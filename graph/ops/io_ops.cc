#include "graph/ops/io_ops.h"

#include "graph/op_registry.h"

namespace tact {
namespace {

Status ReadUpToShape(InferenceContext* c) {
  c->set_output(0, PartialTensorShape({-1}));
  c->set_output(1, PartialTensorShape({-1}));
  return Status::OK();
}

Status DecodeRawShape(InferenceContext* c) {
  const PartialTensorShape& in = c->input(0);
  if (in.unknown_rank()) return shape_fn::Unknown(c);
  std::vector<int64_t> dims = in.dim_sizes();
  dims.push_back(-1);
  c->set_output(0, PartialTensorShape(std::move(dims)));
  return Status::OK();
}

}  // namespace

// The handle is a string ref, as the queues' is (graph/ops/data_flow_ops.cc).
REGISTER_OP("FixedLengthRecordReader").Output("reader_handle: Ref(string)").Attr("header_bytes: int = 0")
    .Attr("record_bytes: int").Attr("footer_bytes: int = 0").Attr("container: string = ''")
    .Attr("shared_name: string = ''").SetIsStateful().SetShapeFn(shape_fn::ScalarShape);
REGISTER_OP("TextLineReader").Output("reader_handle: Ref(string)").Attr("skip_header_lines: int = 0")
    .Attr("container: string = ''").Attr("shared_name: string = ''").SetIsStateful()
    .SetShapeFn(shape_fn::ScalarShape);
REGISTER_OP("TFRecordReader").Output("reader_handle: Ref(string)").Attr("container: string = ''")
    .Attr("shared_name: string = ''").SetIsStateful().SetShapeFn(shape_fn::ScalarShape);
REGISTER_OP("ReaderRead").Input("reader_handle: Ref(string)").Input("queue_handle: Ref(string)")
    .Output("key: string").Output("value: string").SetIsStateful().SetShapeFn(shape_fn::ScalarShape);
REGISTER_OP("ReaderReadUpTo").Input("reader_handle: Ref(string)").Input("queue_handle: Ref(string)")
    .Input("num_records: int64").Output("keys: string").Output("values: string").SetIsStateful()
    .SetShapeFn(ReadUpToShape);
REGISTER_OP("DecodeRaw").Input("bytes: string").Output("output: out_type")
    .Attr("out_type: {half, float, double, int32, uint16, uint8, int16, int8, int64}")
    .Attr("little_endian: bool = true").SetShapeFn(DecodeRawShape);

namespace {

OpBuilder ReaderBuilder(const Scope& scope, const char* op, const ReaderOptions& options) {
  OpBuilder b(scope, op);
  b.Attr("container", options.container).Attr("shared_name", options.shared_name);
  return b;
}

}  // namespace

Output FixedLengthRecordReader(const Scope& scope, int64_t record_bytes, int64_t header_bytes,
                               int64_t footer_bytes, const ReaderOptions& options) {
  return ReaderBuilder(scope, "FixedLengthRecordReader", options).Attr("record_bytes", record_bytes)
      .Attr("header_bytes", header_bytes).Attr("footer_bytes", footer_bytes).FinalizeOutput();
}

Output TextLineReader(const Scope& scope, int64_t skip_header_lines, const ReaderOptions& options) {
  return ReaderBuilder(scope, "TextLineReader", options).Attr("skip_header_lines", skip_header_lines)
      .FinalizeOutput();
}

Output TFRecordReader(const Scope& scope, const ReaderOptions& options) {
  return ReaderBuilder(scope, "TFRecordReader", options).FinalizeOutput();
}

ReaderReadOutputs ReaderRead(const Scope& scope, Input reader, Input queue) {
  Node* n = OpBuilder(scope, "ReaderRead").Input(reader).Input(queue).Finalize();
  if (n == nullptr) return {};
  return {Output(n, 0), Output(n, 1)};
}

ReaderReadUpToOutputs ReaderReadUpTo(const Scope& scope, Input reader, Input queue, Input num_records) {
  Node* n = OpBuilder(scope, "ReaderReadUpTo").Input(reader).Input(queue).Input(num_records).Finalize();
  if (n == nullptr) return {};
  return {Output(n, 0), Output(n, 1)};
}

Output DecodeRaw(const Scope& scope, Input bytes, DataType out_type, bool little_endian) {
  return OpBuilder(scope, "DecodeRaw").Input(bytes).Attr("out_type", out_type)
      .Attr("little_endian", little_endian).FinalizeOutput();
}

}  // namespace tact

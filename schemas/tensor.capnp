# A tensor on the wire or on disk: dtype, shape and bytes. The bytes are the
# little-endian elements in row-major order, as in memory, so a receiver can
# point a Tensor at them without a copy. String tensors use stringVal.
@0xc88725dad5f7256f;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("tact::schema");

struct TensorShapeProto {
  dims @0 :List(Int64);      # -1 for an unknown dimension
  unknownRank @1 :Bool;
}

struct TensorProto {
  dtype @0 :Int32;           # tact::DataType (TensorFlow's numbering)
  shape @1 :List(Int64);     # fully known
  content @2 :Data;          # numElements * dtypeSize bytes (not for strings)
  stringVal @3 :List(Data);  # one per element, for DT_STRING
}

# GraphDef: the serialised graph that a client sends to Session::Extend.
# Its capnp text form converts both ways with the standard tool:
#   capnp encode schemas/graph.capnp GraphDef < graph.txt > graph.bin
#   capnp decode schemas/graph.capnp GraphDef < graph.bin
@0x9064a048afbe993f;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("tact::schema");

using Tensor = import "tensor.capnp";

struct AttrValue {
  union {
    none @0 :Void;
    i @1 :Int64;
    f @2 :Float32;
    b @3 :Bool;
    s @4 :Data;
    type @5 :Int32;
    shape @6 :Tensor.TensorShapeProto;
    tensor @7 :Tensor.TensorProto;
    list @8 :ListValue;
  }
}

struct ListValue {
  union {
    i @0 :List(Int64);
    f @1 :List(Float32);
    b @2 :List(Bool);
    s @3 :List(Data);
    type @4 :List(Int32);
    shape @5 :List(Tensor.TensorShapeProto);
    tensor @6 :List(Tensor.TensorProto);
  }
}

struct NodeDef {
  name @0 :Text;
  op @1 :Text;
  inputs @2 :List(Text);     # "node", "node:port", "^node"
  device @3 :Text;
  attrs @4 :List(Attr);      # sorted by name

  struct Attr {
    name @0 :Text;
    value @1 :AttrValue;
  }
}

struct GraphDef {
  nodes @0 :List(NodeDef);
  version @1 :Int64;
}

#include "graph/graph_def_text.h"

#include <capnp/message.h>
#include <capnp/serialize-text.h>
#include <kj/exception.h>

#include "graph/graph_def_codec.h"
#include "graph/tensor_codec.h"
#include "schemas/graph.capnp.h"

namespace tact {

StatusOr<std::string> GraphDefToText(const GraphDef& def) {
  // Through the binary form, so that text and bytes never disagree.
  TACT_ASSIGN_OR_RETURN(std::string bytes, SerializeGraphDef(def));
  std::string text;
  Status s = ReadCapnpMessage(bytes, "GraphDef", [&](capnp::MessageReader& r) -> Status {
    capnp::TextCodec codec;
    codec.setPrettyPrint(true);
    kj::String out = codec.encode(r.getRoot<schema::GraphDef>());
    text.assign(out.begin(), out.size());
    return Status::OK();
  });
  if (!s.ok()) return s;
  return text;
}

StatusOr<GraphDef> GraphDefFromText(const std::string& text) {
  capnp::MallocMessageBuilder message;
  try {
    capnp::TextCodec codec;
    codec.decode(kj::StringPtr(text.c_str(), text.size()),
                 message.initRoot<capnp::DynamicStruct>(capnp::Schema::from<schema::GraphDef>()));
  } catch (const kj::Exception& e) {
    return errors::InvalidArgument("GraphDef text does not parse: ", e.getDescription().cStr());
  }
  return ParseGraphDef(MessageToBytes(message));
}

}  // namespace tact

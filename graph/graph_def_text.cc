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

namespace {

// capnp's text parser recurses once per bracket and has no depth limit:
// `capnp encode` itself dies of a stack overflow on 200000 '('. Our schema
// nests about ten deep, so anything past kMaxTextNesting is refused before
// the parser sees it.
constexpr int kMaxTextNesting = 64;

Status CheckNesting(const std::string& text) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // skip the escaped character
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '#') {  // a comment runs to the end of the line
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == '(' || c == '[') {
      if (++depth > kMaxTextNesting) {
        return errors::InvalidArgument("GraphDef text nests deeper than ", kMaxTextNesting,
                                       " brackets (at offset ", i, ")");
      }
    } else if (c == ')' || c == ']') {
      --depth;
    }
  }
  return Status::OK();
}

}  // namespace

StatusOr<GraphDef> GraphDefFromText(const std::string& text) {
  TACT_RETURN_IF_ERROR(CheckNesting(text));
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

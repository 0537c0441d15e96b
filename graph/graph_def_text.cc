#include "graph/graph_def_text.h"

#include <capnp/message.h>
#include <capnp/serialize-text.h>
#include <kj/exception.h>

#include <string>

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

// capnp reports a parse error on the exception's line as "<from>-<to>:
// <what>", where <from> counts from the newline before it: one-based, but
// zero-based on the first line, which has none. A person editing the file
// reads "line 2, column 29: <what>".
std::string WhereInText(const kj::Exception& e) {
  const std::string description = e.getDescription().cStr();
  size_t used = 0;
  unsigned long long from = 0;
  try {
    from = std::stoull(description, &used);
  } catch (const std::exception&) {
    return description;
  }
  const size_t colon = description.find(": ", used);
  if (colon == std::string::npos || e.getLine() < 1) return description;
  const unsigned long long column = e.getLine() == 1 ? from + 1 : from;
  return "line " + std::to_string(e.getLine()) + ", column " + std::to_string(column) +
         description.substr(colon);
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
    return errors::InvalidArgument("GraphDef text does not parse: ", WhereInText(e));
  }
  return ParseGraphDef(MessageToBytes(message));
}

}  // namespace tact

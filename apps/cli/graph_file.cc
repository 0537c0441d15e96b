#include "apps/cli/graph_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "graph/graph_def_codec.h"
#include "graph/graph_def_text.h"

namespace tact::apps {

StatusOr<GraphDef> ReadGraphFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return errors::NotFound("cannot open graph file '", path, "'");
  std::ostringstream ss;
  ss << f.rdbuf();
  const std::string bytes = ss.str();
  StatusOr<GraphDef> binary = ParseGraphDef(bytes);
  if (binary.ok()) return binary;
  StatusOr<GraphDef> text = GraphDefFromText(bytes);
  if (text.ok()) return text;
  return errors::InvalidArgument("graph file '", path,
                                 "' is neither a binary nor a text GraphDef: as binary: ",
                                 binary.status().message(), "; as text: ", text.status().message());
}

Status WriteGraphFile(const std::string& path, const GraphDef& def, bool binary) {
  TACT_ASSIGN_OR_RETURN(std::string bytes, binary ? SerializeGraphDef(def) : GraphDefToText(def));
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return errors::PermissionDenied("cannot write graph file '", path, "': ", std::strerror(errno));
  f << bytes;
  f.close();
  // A full disk: the reason is the write's, not a permission.
  if (!f) return errors::ResourceExhausted("cannot write graph file '", path, "': ", std::strerror(errno));
  return Status::OK();
}

}  // namespace tact::apps

// GraphDef files as the commands read and write them: binary Cap'n Proto
// or its text form.
#pragma once

#include <string>

#include "graph/graph_def.h"

namespace tact::apps {

// Either form; the error names the file and what each parse said.
StatusOr<GraphDef> ReadGraphFile(const std::string& path);
// The text form, or the binary one with `binary`.
Status WriteGraphFile(const std::string& path, const GraphDef& def, bool binary);

}  // namespace tact::apps

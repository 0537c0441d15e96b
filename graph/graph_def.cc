#include "graph/graph_def.h"

#include <cctype>

#include "graph/printable.h"

namespace tact {

StatusOr<InputRef> ParseInputRef(const std::string& input) {
  InputRef ref;
  if (input.empty()) return errors::InvalidArgument("empty input name");
  if (input[0] == '^') {
    ref.node = input.substr(1);
    ref.port = -1;
    if (ref.node.empty() || ref.node.find(':') != std::string::npos) {
      return errors::InvalidArgument("malformed control input '", Printable(input), "'");
    }
    return ref;
  }
  const size_t colon = input.rfind(':');
  if (colon == std::string::npos) {
    ref.node = input;
    return ref;
  }
  ref.node = input.substr(0, colon);
  const std::string port = input.substr(colon + 1);
  if (ref.node.empty() || port.empty() || port.size() > 9) {
    return errors::InvalidArgument("malformed input '", Printable(input), "'");
  }
  for (char c : port) {
    if (!std::isdigit(static_cast<unsigned char>(c))) {
      return errors::InvalidArgument("malformed port in input '", Printable(input), "'");
    }
  }
  ref.port = std::stoi(port);
  return ref;
}

}  // namespace tact

#include "graph/ops/einsum_equation.h"

#include <algorithm>

namespace tact {
namespace {

constexpr int kLetters = 52;

int LetterLabel(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
  return -2;
}

char LabelLetter(int label) {
  return static_cast<char>(label < 26 ? 'A' + label : 'a' + (label - 26));
}

Status Bad(const std::string& equation, const std::string& why) {
  return errors::InvalidArgument("Einsum equation '", equation, "': ", why);
}

// One operand's (or the output's) subscript; `what` names it in errors.
StatusOr<std::vector<int>> ParseSubscript(const std::string& equation, const std::string& text,
                                          const std::string& what) {
  std::vector<int> out;
  std::array<bool, kLetters> seen{};
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 3, "...") == 0) {
      if (EinsumEquation::HasEllipsis(out)) return Bad(equation, what + " has '...' twice");
      out.push_back(EinsumEquation::kEllipsis);
      i += 2;
      continue;
    }
    const int label = LetterLabel(text[i]);
    if (label < 0) {
      return Bad(equation, what + " has '" + std::string(1, text[i]) +
                               "', which is neither a letter nor part of '...'");
    }
    if (seen[label]) {
      return Bad(equation, what + " has '" + std::string(1, text[i]) +
                               "' twice (diagonals are not supported)");
    }
    seen[label] = true;
    out.push_back(label);
  }
  return out;
}

// NumPy's implicit output: "..." if any operand has it, then the letters
// that appear exactly once, in label order.
std::vector<int> ImplicitOutput(const std::vector<std::vector<int>>& inputs) {
  std::array<int, kLetters> count{};
  bool ellipsis = false;
  for (const auto& sub : inputs) {
    for (int l : sub) {
      if (l == EinsumEquation::kEllipsis) {
        ellipsis = true;
      } else {
        ++count[l];
      }
    }
  }
  std::vector<int> out;
  if (ellipsis) out.push_back(EinsumEquation::kEllipsis);
  for (int l = 0; l < kLetters; ++l) {
    if (count[l] == 1) out.push_back(l);
  }
  return out;
}

std::string ShapesString(const std::vector<PartialTensorShape>& shapes) {
  std::string s;
  for (const auto& shape : shapes) {
    if (!s.empty()) s += " and ";
    s += shape.DebugString();
  }
  return s;
}

}  // namespace

int EinsumEquation::NamedCount(const std::vector<int>& subscript) {
  return static_cast<int>(std::count_if(subscript.begin(), subscript.end(),
                                        [](int l) { return l != kEllipsis; }));
}

bool EinsumEquation::HasEllipsis(const std::vector<int>& subscript) {
  return std::find(subscript.begin(), subscript.end(), kEllipsis) != subscript.end();
}

StatusOr<EinsumEquation> ParseEinsumEquation(const std::string& equation, int num_inputs) {
  std::string text;
  for (char c : equation) {
    if (c != ' ') text += c;
  }
  const size_t arrow = text.find("->");
  if (arrow != std::string::npos && text.find("->", arrow + 2) != std::string::npos) {
    return Bad(equation, "has '->' twice");
  }
  const std::string lhs = text.substr(0, arrow);
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    parts.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos
                                                                 : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (static_cast<int>(parts.size()) != num_inputs) {
    return Bad(equation, "has " + std::to_string(parts.size()) + " operand subscripts for " +
                             std::to_string(num_inputs) + " operands");
  }
  EinsumEquation eq;
  for (size_t i = 0; i < parts.size(); ++i) {
    TACT_ASSIGN_OR_RETURN(std::vector<int> sub,
                          ParseSubscript(equation, parts[i], "operand " + std::to_string(i)));
    eq.inputs.push_back(std::move(sub));
  }
  if (arrow == std::string::npos) {
    eq.output = ImplicitOutput(eq.inputs);
    return eq;
  }
  TACT_ASSIGN_OR_RETURN(eq.output, ParseSubscript(equation, text.substr(arrow + 2), "the output"));
  for (int l : eq.output) {
    if (l == EinsumEquation::kEllipsis) continue;
    const bool found = std::any_of(eq.inputs.begin(), eq.inputs.end(), [l](const auto& sub) {
      return std::find(sub.begin(), sub.end(), l) != sub.end();
    });
    if (!found) {
      return Bad(equation, "the output's '" + std::string(1, LabelLetter(l)) +
                               "' is in no operand");
    }
  }
  return eq;
}

std::string SubscriptString(const std::vector<int>& subscript) {
  std::string s;
  for (int l : subscript) s += l == EinsumEquation::kEllipsis ? "..." : std::string(1, LabelLetter(l));
  return s;
}

std::string EquationString(const std::vector<std::vector<int>>& inputs,
                           const std::vector<int>& output) {
  std::string s;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (i > 0) s += ',';
    s += SubscriptString(inputs[i]);
  }
  s += "->";
  s += SubscriptString(output);
  return s;
}

int64_t EinsumDims::LabelSize(int label) const {
  return label < EinsumEquation::kFirstEllipsisLabel
             ? letter_size[label]
             : ellipsis[label - EinsumEquation::kFirstEllipsisLabel];
}

StatusOr<EinsumDims> ResolveEinsumDims(const EinsumEquation& eq,
                                       const std::vector<PartialTensorShape>& shapes) {
  EinsumDims d;
  d.letter_size.fill(-1);
  std::array<int, kLetters> from{};  // the operand a letter's known size came from
  for (size_t i = 0; i < eq.inputs.size(); ++i) {
    const std::vector<int>& sub = eq.inputs[i];
    const PartialTensorShape& shape = shapes[i];
    const int named = EinsumEquation::NamedCount(sub);
    const bool ellipsis = EinsumEquation::HasEllipsis(sub);
    if (shape.unknown_rank()) {
      d.operand_ellipsis_rank.push_back(ellipsis ? -1 : 0);
      if (ellipsis) d.ellipsis_known = false;
      continue;
    }
    if (shape.dims() < named || (!ellipsis && shape.dims() != named)) {
      return errors::InvalidArgument(
          "Einsum: operand ", i, " has shape ", shape.DebugString(), " but subscript '",
          SubscriptString(sub), "' needs rank ", ellipsis ? "at least " : "", named);
    }
    const int own = shape.dims() - named;
    d.operand_ellipsis_rank.push_back(own);
    std::vector<int64_t> own_dims;
    int axis = 0;
    for (int l : sub) {
      if (l == EinsumEquation::kEllipsis) {
        for (int t = 0; t < own; ++t) own_dims.push_back(shape.dim_size(axis++));
        continue;
      }
      const int64_t size = shape.dim_size(axis++);
      if (size < 0) continue;
      if (d.letter_size[l] >= 0 && d.letter_size[l] != size) {
        return errors::InvalidArgument(
            "Einsum: '", SubscriptString({l}), "' has size ", d.letter_size[l], " in operand ",
            from[l], " and ", size, " in operand ", i, " (shapes ", ShapesString(shapes), ")");
      }
      d.letter_size[l] = size;
      from[l] = static_cast<int>(i);
    }
    // Broadcast the ellipsis dimensions, right-aligned.
    if (own > static_cast<int>(d.ellipsis.size())) {
      d.ellipsis.insert(d.ellipsis.begin(), own - d.ellipsis.size(), 1);
    }
    for (int t = 0; t < own; ++t) {
      int64_t& b = d.ellipsis[d.ellipsis.size() - own + t];
      const int64_t o = own_dims[t];
      if (o == 1) continue;
      if (b == 1 || b == o || b < 0 || o < 0) {
        b = (o < 0 && b == 1) ? -1 : (o < 0 ? b : o);
        continue;
      }
      return errors::InvalidArgument("Einsum: the dimensions of '...' do not broadcast (shapes ",
                                     ShapesString(shapes), ")");
    }
  }
  return d;
}

PartialTensorShape EinsumOutputShape(const EinsumEquation& eq, const EinsumDims& dims) {
  if (EinsumEquation::HasEllipsis(eq.output) && !dims.ellipsis_known) {
    return PartialTensorShape::Unknown();
  }
  std::vector<int64_t> out;
  for (int l : eq.output) {
    if (l == EinsumEquation::kEllipsis) {
      out.insert(out.end(), dims.ellipsis.begin(), dims.ellipsis.end());
    } else {
      out.push_back(dims.letter_size[l]);
    }
  }
  return PartialTensorShape(out);
}

std::vector<int> ExpandAxes(const std::vector<int>& subscript, int own_rank, int ellipsis_rank) {
  std::vector<int> axes;
  for (int l : subscript) {
    if (l != EinsumEquation::kEllipsis) {
      axes.push_back(l);
      continue;
    }
    for (int t = 0; t < own_rank; ++t) {
      axes.push_back(EinsumEquation::kFirstEllipsisLabel + ellipsis_rank - own_rank + t);
    }
  }
  return axes;
}

}  // namespace tact

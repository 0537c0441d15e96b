// Names from outside the process (a GraphDef file, a Session::Extend, a
// checkpoint) are quoted in error messages. A name may be any UTF-8 text
// (spaces, accents, CJK), but its raw control bytes or broken UTF-8 would
// reach the terminal or log that prints the message: an escape sequence
// recolours or rewrites the line, a newline splits one error in two.
#pragma once

#include <string>
#include <string_view>

namespace tact {

// True when `s` is valid UTF-8 without control characters (C0, DEL, C1).
bool IsPrintableText(std::string_view s);

// `s` with every byte outside printable UTF-8 written as \xNN, for a
// message (not to be parsed back: a backslash in `s` is left as it is).
std::string Printable(std::string_view s);

}  // namespace tact

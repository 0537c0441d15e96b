// How many runtime messages this process has decoded, by type of
// schemas/runtime.capnp, and how many bytes it refused to decode. Every
// message that reaches a process from another one is decoded once: a
// CAF message's Cap'n Proto bytes (actors/wire_caf.h), a step message or
// a LinkFrame on a tensor link (actors/step_link.h, actors/link_frame.h).
// Tests count what crossed between processes with it; `tact worker`
// prints it as its last line.
//
// Thread-safe: relaxed atomic counters.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace tact {

// `type` is the schema's struct name ("RunStep", "LinkFrame", ...).
void CountDecode(const char* type, bool ok);

struct WireDecodeCounts {
  std::map<std::string, uint64_t> decoded;  // by type; types never decoded are absent
  uint64_t refused = 0;                     // bytes that did not decode as their type
};
WireDecodeCounts DecodeCounts();

// {"decoded":{"RunStep":3,...},"refused":0}
std::string DecodeCountsJson();

}  // namespace tact

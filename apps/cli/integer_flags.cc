#include "apps/cli/integer_flags.h"

#include <charconv>
#include <cstdint>
#include <string>
#include <system_error>
#include <type_traits>

namespace tact::apps {
namespace {

// "" for text that fits (or is no number at all: CLI11 says so itself),
// else why not.
template <typename T>
std::string Fits(const std::string& text) {
  T value;
  const char* first = text.data() + (text.size() > 1 && text[0] == '+' ? 1 : 0);
  if (std::from_chars(first, text.data() + text.size(), value).ec == std::errc::result_out_of_range) {
    return "value " + text + " does not fit in a " + (std::is_signed_v<T> ? "" : "non-negative ") +
           "64-bit integer";
  }
  return "";
}

}  // namespace

CLI::Validator NonNegativeInteger() {
  return CLI::Validator(
      [](const std::string& text) -> std::string {
        int64_t value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec == std::errc() && end == text.data() + text.size() && value < 0) {
          return "must be >= 0, got " + text;
        }
        return "";  // 0 or more, or no number (CLI11's conversion says so)
      },
      "NONNEGATIVE", "");
}

void RefuseIntegersBeyond64Bits(CLI::App* app) {
  const CLI::Validator int64(Fits<int64_t>, "", "");
  const CLI::Validator uint64(Fits<uint64_t>, "", "");
  for (CLI::Option* option : app->get_options()) {
    const std::string type = option->get_type_name();
    if (type.rfind("UINT", 0) == 0) {
      option->check(uint64);
    } else if (type.rfind("INT", 0) == 0) {
      option->check(int64);
    }
  }
  for (CLI::App* sub : app->get_subcommands({})) RefuseIntegersBeyond64Bits(sub);
}

}  // namespace tact::apps

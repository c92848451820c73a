#pragma once
// The check of a command-line option that takes seconds (lock and idle timeouts), shared by the
// gpumeter command and every benchmark program. CLI11's own range check would print the
// largest double; this one names the text it refuses.
#include <CLI/CLI.hpp>

#include <cstdlib>
#include <string>

namespace gpumeter {

// 10^7 s is 116 days: beyond any wait a user means, and small enough that the deadline it
// makes stays far inside the steady clock's range.
inline constexpr double kMaxOptionSeconds = 1e7;

inline CLI::Validator seconds_option() {
  return CLI::Validator(
      [](std::string& text) {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size() || !(v >= 0) ||
            v > kMaxOptionSeconds) {
          return "'" + text + "' is not a number of seconds (0 or more)";
        }
        return std::string();
      },
      "SECONDS");
}

}  // namespace gpumeter

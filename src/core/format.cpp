#include "gpumeter/detail/format.hpp"

#include <charconv>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace gpumeter {

std::string format_significant(double value, int digits) {
  if (!std::isfinite(value)) return "not measured";
  if (value == 0) return "0";
  digits = std::clamp(digits, 1, 17);
  // Let the library round ("9.996" to 3 figures is "1.00e+01"), then place the point: fixed
  // notation at every size, since a table of times must not switch to exponents.
  char scientific[64];
  std::snprintf(scientific, sizeof scientific, "%.*e", digits - 1, value);
  const std::string text = scientific;
  const std::size_t e = text.find('e');
  const int exponent = std::atoi(text.c_str() + e + 1);
  std::string sign;
  std::string mantissa;
  for (std::size_t i = 0; i < e; ++i) {
    const char c = text[i];
    if (c == '-') {
      sign = "-";
    } else if (c != '.') {
      mantissa += c;
    }
  }
  const int n = static_cast<int>(mantissa.size());
  if (exponent >= n - 1) {
    return sign + mantissa + std::string(static_cast<std::size_t>(exponent - (n - 1)), '0');
  }
  if (exponent >= 0) {
    const auto point = static_cast<std::size_t>(exponent + 1);
    return sign + mantissa.substr(0, point) + "." + mantissa.substr(point);
  }
  return sign + "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + mantissa;
}

double sig2(double value) {
  if (value == 0.0 || !std::isfinite(value)) return value;
  return std::strtod(format_significant(value, 2).c_str(), nullptr);
}

std::string format_sig2(double value) {
  return format_significant(value, 2);
}

namespace {

// The value a reader reads back from format_significant(value, digits).
double as_printed(double value, int digits) {
  return std::strtod(format_significant(value, digits).c_str(), nullptr);
}

}  // namespace

int interval_digits(double estimate, double low, double high) {
  if (!std::isfinite(estimate) || !std::isfinite(low) || !std::isfinite(high)) {
    return kMinIntervalDigits;
  }
  const double lo = std::min(low, high);
  const double hi = std::max(low, high);
  for (int digits = kMinIntervalDigits; digits < kMaxIntervalDigits; ++digits) {
    const double e = as_printed(estimate, digits);
    if (as_printed(lo, digits) < e && e < as_printed(hi, digits)) return digits;
  }
  return kMaxIntervalDigits;
}

std::string format_shortest(double value) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  return ec == std::errc{} ? std::string(buf, end) : std::to_string(value);
}

std::string format_gpu_uuid(const unsigned char* u) {
  char text[64];
  std::snprintf(text, sizeof(text),
                "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
                u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
                u[14], u[15]);
  return text;
}

}  // namespace gpumeter

// The one reader of a numeric option's text (number_rule.hpp).
#include "gpumeter/detail/number_rule.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <system_error>
#include <utility>

namespace gpumeter {
namespace {

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// A bound in the rule's unit: "0 s", "1M".
std::string bound_in_unit(double v, const NumberRule& rule) {
  return rule.kind == NumberKind::size ? size_text(v) : bound_text(v) + rule.unit;
}

// ">= 0 s", "> 0 s": the lower bound in the rule's unit.
std::string lower_text(const NumberRule& rule) {
  return std::string(rule.min_excluded ? "> " : ">= ") + bound_in_unit(rule.min, rule);
}

// A size's units, each 1024 times the one before (number_rule.hpp says why 1024).
constexpr std::string_view kSizeUnits = "KMGT";

// A fraction's range, in percent and as a fraction: "from 0.1% to 50% (0.001 to 0.5)".
std::string fraction_range_text(const NumberRule& rule) {
  return "from " + bound_text(rule.min * 100) + "% to " + bound_text(rule.max * 100) + "% (" +
         bound_text(rule.min) + " to " + bound_text(rule.max) + ")";
}

// What a text that is no number of the rule's syntax must be.
std::string syntax_text(const NumberRule& rule) {
  switch (rule.kind) {
    case NumberKind::duration:
      return "a duration " + lower_text(rule) + " (10s, 500ms or bare seconds)";
    case NumberKind::fraction:
      return "a fraction " + fraction_range_text(rule) + ", written 1% or 0.01";
    case NumberKind::size:
      return "a size " + lower_text(rule) +
             " (512M, 2G or bare bytes; K, M, G, T are powers of 1024)";
    case NumberKind::plain:
      break;
  }
  return (rule.integer ? "an integer " : "a number ") + lower_text(rule);
}

// What a value in the rule's unit must be when it lies outside the rule's bounds; "" inside them.
std::string range_must(double v, const NumberRule& rule) {
  const bool low = rule.min_excluded ? !(v > rule.min) : !(v >= rule.min);
  if (rule.kind == NumberKind::fraction) {
    return low || v > rule.max ? "a fraction " + fraction_range_text(rule) : "";
  }
  if (low) return lower_text(rule);
  if (v > rule.max) return "at most " + bound_in_unit(rule.max, rule);
  return "";
}

}  // namespace

std::string size_text(double bytes) {
  double shown = bytes;
  std::string unit;
  for (const char u : kSizeUnits) {
    if (shown < 1024 || std::fmod(shown, 1024) != 0) break;
    shown /= 1024;
    unit = std::string(1, u);
  }
  return bound_text(shown) + unit;
}

std::string bound_text(double v) {
  char text[64];
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    std::snprintf(text, sizeof text, "%.0f", v);
  } else {
    std::snprintf(text, sizeof text, "%g", v);
  }
  return text;
}

bool decimal_syntax(std::string_view text) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i - start;
  };
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  std::size_t mantissa = digits();
  if (i < text.size() && text[i] == '.') {
    ++i;
    mantissa += digits();
  }
  if (mantissa == 0) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == text.size();
}

NumberValue read_number(std::string_view text, const NumberRule& rule) {
  NumberValue out;
  const auto refuse = [&](std::string must, bool quoted) {
    out.must = std::move(must);
    out.quoted = quoted;
    return out;
  };
  // The unit's suffix, where the kind has one; the value is divided into the rule's unit (a
  // division, so 7% is the same double as 0.07).
  std::string_view number = text;
  double divisor = 1;
  double multiplier = 1;
  bool suffixed = false;
  if (rule.kind == NumberKind::duration) {
    if (ends_with(number, "ms")) {
      number.remove_suffix(2);
      divisor = 1000;
    } else if (ends_with(number, "s")) {
      number.remove_suffix(1);
    }
  } else if (rule.kind == NumberKind::size) {
    const bool binary = ends_with(number, "iB");
    if (binary) number.remove_suffix(2);
    const std::size_t unit =
        number.empty() ? std::string_view::npos : kSizeUnits.find(number.back());
    if (unit != std::string_view::npos) {
      number.remove_suffix(1);
      multiplier = std::ldexp(1.0, 10 * static_cast<int>(unit + 1));
    } else if (binary) {
      return refuse(syntax_text(rule), true);  // "100iB": iB after no unit
    }
  } else if (rule.kind == NumberKind::fraction && ends_with(number, "%")) {
    number.remove_suffix(1);
    divisor = 100;
    suffixed = true;
  }
  double v = 0;
  if (rule.integer) {
    long long whole = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), whole);
    if (ec == std::errc::result_out_of_range && end == number.data() + number.size()) {
      // A whole number beyond a long long: out of range on its side.
      v = number.front() == '-' ? -std::numeric_limits<double>::infinity()
                                : std::numeric_limits<double>::infinity();
    } else if (number.empty() || ec != std::errc{} || end != number.data() + number.size()) {
      return refuse(syntax_text(rule), true);
    } else {
      v = static_cast<double>(whole);
    }
  } else {
    const std::string copy(number);
    char* end = nullptr;
    v = std::strtod(copy.c_str(), &end);
    if (!decimal_syntax(number) || end != copy.c_str() + copy.size() || !std::isfinite(v)) {
      return refuse(syntax_text(rule), true);
    }
    v /= divisor;
    // A size is whole bytes: a part of one is dropped.
    if (rule.kind == NumberKind::size) v = std::floor(v * multiplier);
  }
  if (rule.kind == NumberKind::fraction) {
    // A bare 2 is someone's 2%: said so, with both ways to write it where that is a target the
    // rule takes.
    if (!suffixed && v >= 1) {
      const double as_percent = v / 100;
      const bool would_do = (rule.min_excluded ? as_percent > rule.min : as_percent >= rule.min) &&
                            as_percent <= rule.max;
      return refuse(
          would_do ? "a fraction, written " + std::string(number) + "% or " + bound_text(as_percent)
                   : "a fraction " + fraction_range_text(rule),
          false);
    }
  }
  if (std::string must = range_must(v, rule); !must.empty()) return refuse(std::move(must), false);
  out.value = v;
  return out;
}

std::string value_problem(std::string_view name, double value, const NumberRule& rule) {
  std::string must;
  if (!std::isfinite(value)) {
    must = syntax_text(rule);
  } else if (rule.integer && value != std::floor(value)) {
    must = syntax_text(rule);
  } else {
    must = range_must(value, rule);
  }
  if (must.empty()) return {};
  return std::string(name) + " must be " + must + ", got " + bound_text(value);
}

std::string number_problem(std::string_view name, std::string_view text, const NumberRule& rule) {
  const NumberValue read = read_number(text, rule);
  if (read.ok()) return {};
  const std::string got = read.quoted ? "'" + std::string(text) + "'" : std::string(text);
  return std::string(name) + " must be " + read.must + ", got " + got;
}

std::string number_rule_text(const NumberRule& rule) {
  if (rule.kind == NumberKind::fraction) {
    return bound_text(rule.min * 100) + "% to " + bound_text(rule.max * 100) + "%";
  }
  return lower_text(rule);
}

}  // namespace gpumeter

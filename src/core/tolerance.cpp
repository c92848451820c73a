#include "gpumeter/detail/tolerance.hpp"

#include <cmath>
#include <optional>
#include <string>
#include <string_view>

#include "gpumeter/detail/format.hpp"

namespace gpumeter {

std::string tolerance_problem(double rtol, double atol) {
  const auto shown = [](double v) { return format_shortest(v); };
  if (!std::isfinite(rtol) || rtol < 0) {
    return "rtol " + shown(rtol) +
           " is not a finite number >= 0: the check would pass or refuse every answer";
  }
  if (!std::isfinite(atol) || atol < 0) {
    return "atol " + shown(atol) +
           " is not a finite number >= 0: the check would pass or refuse every answer";
  }
  if (rtol >= kMaxRelativeTolerance) {
    return "rtol " + shown(rtol) + " is " + shown(kMaxRelativeTolerance) +
           " or more: an answer off by its own size would pass, so the check proves nothing";
  }
  return "";
}

std::string absolute_tolerance_problem(double rtol, double atol, double reference_largest) {
  if (!(reference_largest > 0)) return "";
  // |0 - ref| <= rtol * |ref| + atol for every element once atol reaches this.
  if (!(atol < (1 - rtol) * reference_largest)) {
    return "atol " + format_shortest(atol) +
           " is not small against the reference's answer (largest magnitude " +
           format_shortest(reference_largest) +
           "): an answer of all zeros would pass every element, so the check proves nothing";
  }
  return "";
}

std::string_view to_string(ConstantAnswer which) {
  switch (which) {
    case ConstantAnswer::zeros:
      return "zeros";
    case ConstantAnswer::mean:
      return "mean";
    case ConstantAnswer::midpoint:
      return "midpoint";
  }
  return "zeros";
}

std::optional<ConstantAnswer> parse_constant_answer(std::string_view text) {
  for (const ConstantAnswer which : kConstantAnswers) {
    if (to_string(which) == text) return which;
  }
  return std::nullopt;
}

double constant_answer_value(ConstantAnswer which, const AnswerSpread& reference) {
  switch (which) {
    case ConstantAnswer::zeros:
      return 0;
    case ConstantAnswer::mean:
      return reference.mean;
    case ConstantAnswer::midpoint:
      // Halves first: least + largest of two numbers near the largest double overflows.
      return reference.least / 2 + reference.largest / 2;
  }
  return 0;
}

std::string constant_answer_problem(double rtol, double atol, ConstantAnswer which,
                                    const AnswerSpread& reference, double worst_excess) {
  // Not finite: an element NaN or infinite (which no constant meets), or no elements at all.
  if (!std::isfinite(worst_excess) || !(worst_excess <= atol)) return "";
  const double c = constant_answer_value(which, reference);
  if (!std::isfinite(c)) return "";
  if (reference.least == reference.largest && c == reference.least) return "";
  const std::string what = which == ConstantAnswer::zeros ? "0 (zeros)"
                           : which == ConstantAnswer::mean
                               ? format_shortest(c) + " (the reference answer's mean)"
                               : format_shortest(c) +
                                     " (the middle of the reference "
                                     "answer's range)";
  return "rtol " + format_shortest(rtol) + " and atol " + format_shortest(atol) +
         " pass an answer of " + what + " in every element of the reference's answer (from " +
         format_shortest(reference.least) + " to " + format_shortest(reference.largest) +
         "): an answer that ignores its inputs would be correct, so the check proves nothing";
}

}  // namespace gpumeter

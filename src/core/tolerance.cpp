#include "gpumeter/detail/tolerance.hpp"

#include <cmath>
#include <string>

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

}  // namespace gpumeter

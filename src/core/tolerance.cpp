#include "gpumeter/tolerance.hpp"

#include <cmath>
#include <string>

#include "gpumeter/format.hpp"

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

}  // namespace gpumeter

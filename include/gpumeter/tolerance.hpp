#pragma once
// The tolerances an answer is checked with (docs/evaluation.md): |out - ref| <= rtol * |ref| +
// atol, element by element. A verdict is only as good as its tolerance: an infinite one passes
// every answer (an all-zero output "correct" and 161x faster), NaN fails no comparison in some
// checks, and a negative one refuses every answer.
#include <string>

namespace gpumeter {

// A relative tolerance of 1 passes any answer of the right sign and half the size or more: no
// precision a check is meant for allows that much, so it is refused rather than trusted.
inline constexpr double kMaxRelativeTolerance = 1.0;

// Why `rtol` and `atol` cannot make a verdict ("rtol inf is not finite ..."), or "" when they
// can: both finite, both >= 0, rtol below kMaxRelativeTolerance.
std::string tolerance_problem(double rtol, double atol);

}  // namespace gpumeter

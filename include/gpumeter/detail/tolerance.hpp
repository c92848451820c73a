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

// Why `atol` cannot make a verdict on answers like the reference's, whose largest magnitude is
// `reference_largest` (taken at the first, untimed check), or "" when it can. An atol of
// (1 - rtol) * reference_largest or more passes an answer of all zeros in every element: the
// check proves nothing, as with an rtol of 1 (an atol of 1e300 made an all-zero candidate
// "19x faster"). No tolerance meant for precision comes near: a legitimate atol is a small
// fraction of the answer's size. A reference of zeros only (or NaN) has no size to hold atol
// to, so nothing is refused there.
std::string absolute_tolerance_problem(double rtol, double atol, double reference_largest);

}  // namespace gpumeter

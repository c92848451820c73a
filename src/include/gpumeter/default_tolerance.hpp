#pragma once
// The tolerances a check holds answers to when the user names none (tolerance.hpp says what they
// mean), in every front end: Python's compare/sweep/phases and `gpumeter evaluate` take them from
// here through the binding, so none keeps a value of its own.

namespace gpumeter {

// numpy.allclose's, so a check means what a numpy user already expects: tight enough that a wrong
// float32 answer fails (1e-5 is under a hundred float32 steps), loose enough for a float64 sum
// taken in another order.
inline constexpr double kDefaultRelativeTolerance = 1e-5;
inline constexpr double kDefaultAbsoluteTolerance = 1e-8;

}  // namespace gpumeter

#pragma once
// Student's t distribution, for the intervals of difference.cpp: an implementation detail of
// the comparison rule, tested directly, never called by a user.
namespace gpumeter {

// The quantile p of Student's t distribution with `df` degrees of freedom (df >= 1).
double student_t_quantile(double p, int df);

}  // namespace gpumeter

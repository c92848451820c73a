#pragma once
// The tolerances an answer is checked with (docs/evaluation.md): |out - ref| <= rtol * |ref| +
// atol, element by element. A verdict is only as good as its tolerance: an infinite one passes
// every answer (an output never written reads "correct" and far faster), NaN fails no comparison
// in some checks, and a negative one refuses every answer (docs/evaluation.md).
#include <optional>
#include <string>
#include <string_view>

namespace gpumeter {

// The tolerances a row's answers were checked with, as its record states them (docs/records.md):
// a reader can see what "correct" meant. Absent where gpumeter's check made none (a check of the
// user's own, or none at all).
struct AnswerCheck {
  double rtol = 0;
  double atol = 0;
  friend bool operator==(const AnswerCheck&, const AnswerCheck&) = default;
};

// A relative tolerance of 1 passes any answer of the right sign and half the size or more: no
// precision a check is meant for allows that much, so it is refused rather than trusted.
inline constexpr double kMaxRelativeTolerance = 1.0;

// Why `rtol` and `atol` cannot make a verdict ("rtol inf is not finite ..."), or "" when they
// can: both finite, both >= 0, rtol below kMaxRelativeTolerance.
std::string tolerance_problem(double rtol, double atol);

// Why `atol` cannot make a verdict on answers like the reference's, whose largest magnitude is
// `reference_largest` (taken at the first, untimed check), or "" when it can. An atol of
// (1 - rtol) * reference_largest or more passes an answer of all zeros in every element: the
// check proves nothing, as with an rtol of 1 (an all-zero candidate reads "correct" and faster).
// No tolerance meant for precision comes near: a legitimate atol is a small
// fraction of the answer's size. A reference of zeros only (or NaN) has no size to hold atol
// to, so nothing is refused there.
std::string absolute_tolerance_problem(double rtol, double atol, double reference_largest);

// Constant answers that ignore their inputs. A tolerance under which one of them passes every
// element of the reference's answer proves nothing about the work (under atol 1.5, a candidate
// returning 1.0 everywhere passes against answers in [0, 2)). The front end
// computes, for each constant here, the largest excess over rtol of its distance to the
// reference's elements, max_i(|c - ref_i| - rtol * |ref_i|), and the core judges it against atol.
enum class ConstantAnswer {
  zeros,     // 0 in every element (an output never written, or cleared)
  mean,      // the reference answer's mean in every element
  midpoint,  // the middle of the reference answer's range, (least + largest) / 2
};
inline constexpr ConstantAnswer kConstantAnswers[] = {ConstantAnswer::zeros, ConstantAnswer::mean,
                                                      ConstantAnswer::midpoint};
std::string_view to_string(ConstantAnswer which);  // "zeros", "mean", "midpoint"
std::optional<ConstantAnswer> parse_constant_answer(std::string_view text);

// What the constants are made from: the reference answer's mean, least and largest element.
struct AnswerSpread {
  double mean = 0;
  double least = 0;
  double largest = 0;
};

// The constant `which` of answers spread as `reference`.
double constant_answer_value(ConstantAnswer which, const AnswerSpread& reference);

// Why rtol and atol pass the constant answer `which` of `reference` in every element, given
// `worst_excess` = max_i(|c - ref_i| - rtol * |ref_i|) over the reference's elements (c its
// constant_answer_value), or "" when they do not (worst_excess above atol, or not finite: an
// element NaN or infinite, or none at all). A reference whose elements are all that constant is not
// refused: there the constant answer is the right one, and no tolerance tells it apart.
std::string constant_answer_problem(double rtol, double atol, ConstantAnswer which,
                                    const AnswerSpread& reference, double worst_excess);

}  // namespace gpumeter

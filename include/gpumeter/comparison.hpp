#pragma once
// Comparisons of the implementations of one case, computed from results only (docs/comparisons.md).
// Each implementation is compared with the case's first (its baseline), by the rule its statistic
// calls for:
//   - device time (device_busy, cuda_event): the relative difference with its interval, or "no
//     difference detected" with the smallest difference that would have been seen
//     (difference.hpp);
//   - wall clock (synchronized_wall_clock): the evaluation protocol's 1.5x resolution, and the
//   interval as
//     the finer statement the samples may support under it.
// Two different statistics are never compared. A record stores each comparison with the rule
// that applied; a reader recomputes them and refuses a record whose stored ones differ.
#include <optional>
#include <string>
#include <vector>

#include "gpumeter/clock_state.hpp"
#include "gpumeter/difference.hpp"
#include "gpumeter/row.hpp"
#include "gpumeter/timing_method.hpp"
#include "gpumeter/verdict.hpp"

namespace gpumeter {

struct Result;  // record.hpp, which holds Comparisons

enum class ComparisonRule {
  relative_difference,  // device time: a percent with its interval
  resolution,           // wall clock: the 1.5x resolution
};
std::string to_string(ComparisonRule rule);  // "relative_difference", "resolution_1.5x"
std::optional<ComparisonRule> parse_comparison_rule(const std::string& text);
ComparisonRule rule_for(Statistic statistic);

struct Comparison {
  RowKey baseline;   // the case's first row
  RowKey candidate;  // same case and params, another implementation
  Statistic statistic = Statistic::device_busy;
  ComparisonRule rule = ComparisonRule::relative_difference;
  // The interval rule's result: always for device time unless refused; for wall clock when
  // both rows have passes enough to give one.
  std::optional<RelativeDifference> difference;
  // The 1.5x rule's result, wall clock only.
  std::optional<RatioVerdict> ratio;
  std::string refusal;  // why the two were not compared; empty when they were
  // The rows' clocks, when each was read; describe() says when the two ran at different clocks
  // (clocks_differ) or either has flagged samples, by the rule that flags a sample.
  std::optional<ClockSummary> baseline_clock;
  std::optional<ClockSummary> candidate_clock;

  bool compared() const { return refusal.empty(); }
};

// A row's null test: the median of its scaled work's samples against the median of its own.
struct NullTestOutcome {
  RowKey row;
  int scale = 0;
  std::optional<NullTestVerdict> verdict;
  std::string refusal;  // why no verdict (no samples, a zero median): counts as failed

  bool failed() const { return !verdict || !verdict->pass; }
};

// The null test of a result that has one; nullopt when it has none. A row whose null test
// failed is marked failed: tables show its ratio, not its times, and it is compared with nothing.
std::optional<NullTestOutcome> null_test_of(const Result& result);

// One row against another (two implementations of a case in one record, or one row of a
// baseline record against the same row of a new one): the rule of their statistic applied, or
// why they were not compared. Two different statistics are never compared.
Comparison compare_rows(const Result& baseline, const Result& candidate);

// Every comparison of `results` (one record's rows, in record order): rows are grouped by case
// and params, the first of a group is the baseline. A row whose null test failed is refused.
std::vector<Comparison> compare_results(const std::vector<Result>& results);
std::vector<NullTestOutcome> null_tests(const std::vector<Result>& results);

// The sentence a reader sees first, e.g. "tiled is 2.8% slower than naive (95% interval 2.6%
// to 3.0%)", "no difference detected between b and a (a difference larger than 0.43% would
// have been seen)", "b is 1.6x faster than a (directional difference)", and under 1.5x on
// the wall clock, where no direction was measured, "no measured difference at this precision
// between b and a (b took 1.0x the time of a, by their medians; ...)".
std::string describe(const Comparison& comparison);

// What may make a comparison the clocks' rather than the work's, or "" when nothing does (or a
// side's clock was not read), by the rule that flags a sample: "the two ran at different SM clocks
// (median 1755 MHz against 1980 MHz)" (clocks_differ), and "clock-flagged samples: new 12 of 200,
// base 0 of 200" when either side has flagged samples. describe() ends with it; `gpumeter compare`
// names the sides "base" and "new".
std::string clock_difference_words(const Comparison& comparison, const std::string& baseline_name,
                                   const std::string& candidate_name);

// A difference and its interval in words, the one place they are worded: "2.8% slower" and
// "95% interval 2.6% to 3.0%" (from the 1.5x resolution on, factors: "2.1x slower", "1.9x to
// 2.3x"); where no difference was found, "estimate +0.020%" and the signed "95% interval -0.31%
// to +0.52%". The estimate and the ends share their significant figures (interval_digits in
// format.hpp), so the printed estimate lies inside the printed interval.
struct DifferenceWords {
  std::string change;
  std::string interval;
};
DifferenceWords difference_words(const RelativeDifference& difference);

// A difference's estimate and interval as signed percents sharing their significant figures
// (interval_digits in format.hpp): {"+2.8%", "+2.6%", "+3.0%"}. The sentences of describe()
// and every table that prints a change with its interval (`gpumeter compare`) use it.
struct PercentText {
  std::string estimate;
  std::string low;
  std::string high;
};
PercentText percent_text(const RelativeDifference& difference);
std::string describe(const NullTestOutcome& outcome);

}  // namespace gpumeter

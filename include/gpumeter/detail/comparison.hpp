#pragma once
// Comparisons of the implementations of one case, computed from results only (docs/comparisons.md).
// Each implementation is compared with the case's first (its baseline), by the rule its statistic
// calls for:
//   - device time (device_busy, device_event): the relative difference with its interval, or "no
//     difference detected" with the smallest difference that would have been seen
//     (difference.hpp);
//   - wall clock (synchronized_wall_clock): the evaluation protocol's 1.5x resolution, and the
//   interval as
//     the finer statement the samples may support under it.
// Two different statistics are never compared. A record stores each comparison with the rule
// that applied; a reader recomputes them and refuses a record whose stored ones differ.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gpumeter/detail/clock_state.hpp"
#include "gpumeter/detail/difference.hpp"
#include "gpumeter/detail/precision.hpp"
#include "gpumeter/detail/row.hpp"
#include "gpumeter/detail/timing_method.hpp"
#include "gpumeter/detail/verdict.hpp"

namespace gpumeter {

struct Result;  // record.hpp, which holds Comparisons

// The record schema version whose comparison rules are the current ones: the last version that
// changed one. A later version that changes none (record.hpp's kRecordSchemaVersion, which cannot
// be included here) is judged by these.
inline constexpr int kComparisonRulesVersion = 11;
// The version from which a host-clock comparison claims a difference only where the passes'
// interval, the 1.5x floor and the means agree (host_clock.hpp); before it, the 1.5x rule on
// the medians alone.
inline constexpr int kHostClockRulesSince = 11;
// The version from which the rules of moved work apply.
inline constexpr int kMovedWorkRulesSince = 8;
// The version from which intervals are at 99% with a step's allowance of kPassTrim where the
// readings show random phases (difference.hpp); before it, 95% and half a step always.
inline constexpr int kCalibratedIntervalsSince = 9;
// The interval rules of a record of `schema_version`.
IntervalRules interval_rules_of(int schema_version);
// The version a record of `schema_version` is held and written as once read: the current record
// schema version, or the last version with its comparison rules (kCalibratedIntervalsSince - 1
// for older intervals, kHostClockRulesSince - 1 for the older host-clock rule), written with that
// version's fields.
int records_rules_version(int schema_version);

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
  // The comparison ran to a target precision: what was asked, reached, and why it stopped.
  std::optional<PrecisionOutcome> precision;
  // The rows' clocks, when each was read; describe() says when the two ran at different clocks
  // (clocks_differ) or either has flagged samples, by the rule that flags a sample.
  std::optional<ClockSummary> baseline_clock;
  std::optional<ClockSummary> candidate_clock;
  // The mean time per call of each side, over every sample of every pass, stated beside the
  // medians: work a side moved between calls (a few calls doing the work of many) leaves its
  // median light and its mean where the work is.
  double baseline_mean_ns = 0;
  double candidate_mean_ns = 0;
  // Whether both sides had fresh inputs before every call (true), either did not (false: fixed
  // inputs, on which a remembered answer reads as a speed-up), or a row does not say (nullopt:
  // a record from before ledgers).
  std::optional<bool> fresh_inputs;

  bool compared() const { return refusal.empty(); }
};

// Work moved between calls. Calls of one work on fresh inputs share it about evenly: half of
// their device time is held by about half of them. A side whose half is held by fewer than this
// share of its calls, while the ratio of the two sides' means lies outside the interval of the
// comparison (which judges by levels a few heavy calls barely move), is refused by name. Device
// time only: a host clock's preempted calls look the same (comparison.cpp).
// Those few calls must fall in at least kConcentratedPasses of its passes: work moved between
// calls recurs, while one stray reading (a host preemption many times a call's length) lands in
// one pass.
inline constexpr double kConcentratedCallShare = 0.25;
inline constexpr std::size_t kConcentratedPasses = 2;
// A "faster" on fixed inputs by this factor or more is what a call returning a remembered answer
// reads like (a tiny kernel in front of a stored result reads far faster still:
// docs/measured-figures.md); its sentence
// says so and names fresh inputs and `gpumeter evaluate`.
inline constexpr double kRememberedAnswerFactor = 10.0;

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
// Decided once, by summarize_result (record.hpp), into Result::null_test_outcome, which everything
// else reads (tests/structure/one_of_each.sh fails on another caller).
std::optional<NullTestOutcome> null_test_of(const Result& result);

// One row against another (two implementations of a case in one record, or one row of a
// baseline record against the same row of a new one): the rule of their statistic applied, or
// why they were not compared. Two different statistics are never compared, nor a row whose null
// test failed (by the outcome its finished result holds).
// `schema_version`: the rules of that version of the record (a stored comparison is recomputed by
// the rules it was made with; the rules of work moved between calls and into the harness's work
// came with version 8).
// `across_runs`: the two rows are of two runs (compare_across_runs), whose passes were not
// interleaved; a host-clock comparison then claims from kAcrossRunsResolutionRatio
// (host_clock.hpp).
Comparison compare_rows(const Result& baseline, const Result& candidate,
                        int schema_version = kComparisonRulesVersion, bool across_runs = false);

// Every comparison of `results` (one record's rows, in record order): rows are grouped by case
// and params, the first of a group is the baseline. A row whose null test failed is refused.
std::vector<Comparison> compare_results(const std::vector<Result>& results,
                                        int schema_version = kComparisonRulesVersion);
// The null-test outcomes `results` hold, in their order.
std::vector<NullTestOutcome> null_tests(const std::vector<Result>& results);

// The sentences that word a comparison or a null test (describe()) are in wording.hpp.

}  // namespace gpumeter

#pragma once
// Every sentence and label a reader sees about a result, worded in one place: the comparison
// sentences (a difference with its interval, the 1.5x resolution, "no difference detected"), the
// null test, a device's label, "not measured", a percent of a measured ceiling and a result's
// one-line summary. The markdown and CSV tables, `gpumeter compare`, the benchmark programs and
// the Python module all print these, so one result reads the same wherever it is shown. Text
// that came from a record is returned as it is: the caller makes it inert for its output
// (escape.hpp).
#include <optional>
#include <string>
#include <vector>

#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/growth.hpp"
#include "gpumeter/detail/precision.hpp"
#include "gpumeter/detail/timing_method.hpp"
#include "gpumeter/detail/total_n.hpp"
#include "gpumeter/record.hpp"

namespace gpumeter {

// A cell or value with no measurement behind it.
inline constexpr const char* kNotMeasured = "not measured";
// A counter or fact that could not be read when the record was made.
inline constexpr const char* kNotAvailable = "not available";

// Times in tables and one-line summaries carry 3 significant figures: enough to read a
// difference the 1.5x resolution could call, without pretending to more precision than a shared
// machine has.
inline constexpr int kTableTimeDigits = 3;

// A device as every output names it: "<name> (cuda:0)", or "cuda:0" without a name; with
// `with_uuid`, the uuid joins the index ("<name> (cuda:0, GPU-...)", "cuda:0 (GPU-...)"),
// for where two devices must be told apart (two records compared, a lock held).
std::string device_label(const DeviceIdentity& device, bool with_uuid = false);

// The device a row ran on, as a table's device column names it: its record's device_label where
// the row ran on that device, else its own board's name and uuid ("<name> (GPU-...)"): a record
// joined from runs on several boards keeps each row's.
std::string row_device_label(const DeviceIdentity& device, const DeviceState& state,
                             const Board& board);

// The boards a record ran on: its device's first, then each other board its rows name, in the
// order of their first rows (same_board tells them apart).
std::vector<Board> record_boards(const Record& record);
// Whether two records ran on the same boards (in any order): rows of a board only one of them
// has are never compared.
bool same_boards(const Record& a, const Record& b);
// A record's boards as one line names them: its device_label with the uuid for a record of one
// board; "3 boards: <device_label with uuid>, <name> (<uuid>), ..." for one joined from several.
std::string record_boards_label(const Record& record);

// From this time on (10 ms) times read in ms, so a long op does not read as 123000 us; below it,
// kernel times stay in the unit they are usually quoted in. A table takes the unit of its largest
// median device_busy.
inline constexpr double kMillisecondTimesFromNs = 10e6;
// A time in ns as a one-line summary prints it: "12.3 us", or "12.3 ms" from 10 ms on.
std::string time_text(double ns);

// Device memory in bytes as tables show it, in MiB to 3 significant figures ("12.0"); "not
// available" when not read.
inline constexpr double kBytesPerMiB = 1024.0 * 1024.0;
std::string mib_text(std::optional<double> bytes);

// The mark of a percent above the ceiling it is a percent of: "103% (above the measured
// ceiling)". The row ran faster than the fastest run of the work that timed the ceiling.
inline constexpr const char* kAboveCeiling = "above the measured ceiling";
std::string percent_of_ceiling(double percent, bool above);

// A difference and its interval in words: "2.8% slower" and "95% interval 2.6% to 3.0%" (from
// the 1.5x resolution on, factors: "2.1x slower", "1.9x to 2.3x"); where no difference was
// found, "estimate +0.020%" and the signed "95% interval -0.31% to +0.52%". The estimate and the
// ends share their significant figures (interval_digits in format.hpp), so the printed estimate
// lies inside the printed interval.
struct DifferenceWords {
  std::string change;
  std::string interval;
};
DifferenceWords difference_words(const RelativeDifference& difference);

// Whether a difference is said as a factor ("2.1x"), from the 1.5x resolution on
// (kResolutionRatio), or as a percent ("2.8%").
bool as_factor(double estimate);
// A found difference's amounts, as difference_words says them: the estimate, the end of the
// interval nearer no difference and the farther one ("2.8%", "2.6%", "3.0%"; "2.1x", "1.9x",
// "2.3x"), sharing their significant figures. The plots label an interval with them.
struct DifferenceAmounts {
  std::string estimate;
  std::string near;
  std::string far;
};
DifferenceAmounts difference_amounts(const RelativeDifference& difference);

// A difference's estimate and interval as signed percents sharing their significant figures:
// {"+2.8%", "+2.6%", "+3.0%"}, for a table that prints a change with its interval.
struct PercentText {
  std::string estimate;
  std::string low;
  std::string high;
};
PercentText percent_text(const RelativeDifference& difference);

// The sentence a reader sees first, e.g. "tiled is 2.8% slower than naive (95% interval 2.6%
// to 3.0%; device_busy)", "no difference detected between b and a (a difference larger than
// 0.43% would have been seen; ...)", "b is 1.6x faster than a (directional difference; ...)",
// and under 1.5x on the wall clock, where no direction was measured, "no measured difference at
// this precision between b and a (b took 1.0x the time of a, by their medians; ...)". A refused
// pair: "b and a not compared: WHY". A compared pair ends with its means per call and its
// inputs (means_words, inputs_words).
std::string describe(const Comparison& comparison);
// "; mean per call b 12.3 us, a 12.4 us" (or "" where a row has no mean): beside the medians,
// where work moved between calls shows.
std::string means_words(const Comparison& comparison);
// "; on fresh inputs" or "; on fixed inputs" (with, for a "faster" of kRememberedAnswerFactor or
// more, what a remembered answer reads like and what to measure with); "" where a row does not
// say.
std::string inputs_words(const Comparison& comparison);

// A run to a target precision in words: "target 2% reached after 24 passes, 0.6 s", or "target
// 1% not reached: 1.8% after 64 passes, 10 s (the time cap)". describe() ends a comparison run
// to a target with it.
std::string precision_words(const PrecisionOutcome& outcome);

// A lone implementation run to a target precision: "level within +-0.82% (99% interval of the
// passes' geometric mean; target 1% reached after 6 passes, 0.31 s)", at the confidence of the
// record's schema version. Empty for a result that was not run to a target.
std::string describe_precision(const Result& result, int schema_version = kComparisonRulesVersion);

// What may make a comparison the clocks' rather than the work's, or "" when nothing does (or a
// side's clock was not read): "the two ran at different SM clocks (median A MHz against B MHz)",
// and "clock-flagged samples: new 12 of 200, base 0 of 200" when either side has flagged
// samples. describe() ends with it; `gpumeter compare` names the sides "base" and "new".
std::string clock_difference_words(const Comparison& comparison, const std::string& baseline_name,
                                   const std::string& candidate_name);

// A row of `gpumeter compare`: its change ("+2.8% [+2.6%, +3.0%]", "1.6x faster", "not
// compared") and its finding ("slower", "no difference detected (would see 0.43%)", the 1.5x
// label, or why it was not compared), by the rule of its statistic.
struct CompareRowWords {
  std::string change;
  std::string finding;
};
CompareRowWords compare_row_words(const Comparison& comparison);
// A regression a gate names: "10% slower (95% interval 9.9% to 10%)", or on the wall clock
// "2.0x slower (directional difference, 1.5x resolution)".
std::string regression_words(const Comparison& comparison);

// The null test's sentence: "4x the work took 4.0x the time: pass", "...: FAIL (the harness may
// not be timing the work)", or "null test FAILED: not evaluated: WHY".
std::string describe(const NullTestOutcome& outcome);
// What a row whose null test failed says in place of its times: "FAILED its null test: SENTENCE;
// its times are kept in the record as evidence, not shown, and it is compared with nothing".
std::string null_test_failed_words(const NullTestOutcome& outcome);
// A null test in a cell: the record's and CSV's "4.0x for 4x work: pass", or, where the heading
// names the scale (the narrow table), "pass (4.0x)"; "FAIL (not evaluated)" without a verdict,
// "not run" without a null test.
std::string null_test_cell(const std::optional<NullTestOutcome>& outcome, bool with_scale = true);

// The lines that head the comparisons and the null tests under a table: the rule of each (the
// interval's confidence that of the records' schema version; nullopt for records of versions
// whose rules differ, where each sentence states its own).
std::string comparisons_heading(std::optional<int> schema_version = kComparisonRulesVersion);
// The heading over the comparisons of several records: their shared schema version's, or each
// sentence its own where their interval rules differ.
std::string comparisons_heading(const std::vector<Record>& records);
std::string null_tests_heading();

// A result in one line, as Python prints it: "impl: device_busy median 12.3 us [p10 12.0 us,
// p90 12.7 us], latency 12.5 us, 200 samples, R TB/s, P% of the measured TB/s ceiling (above
// the measured ceiling)"; a row whose null test failed says so instead of its times.
std::string describe(const Result& result);

// The phases a user waits for (phases.hpp, total_n.hpp, growth.hpp).
// "cupy overtakes warp between N = 10 and N = 100 (both measured; each end decided by the 1.5x
// rule)", or, unresolved, that the medians change order there but the order is not established.
std::string describe(const Crossover& crossover, std::string_view axis);
// "time ~ bytes^0.98 from 1e+07 to 1e+09 (linear: throughput-bound ...; R^2 0.998, 6 points)".
std::string describe(const GrowthRegime& regime, std::string_view axis);
// The wrapper's work: the public call against the bare kernel, both synchronized wall clock.
std::string wrapper_words(const std::vector<Nanos>& kernel, const std::vector<Nanos>& call);
// A statistic as every table, report, repr and plot titles it: "wall clock" for the synchronized
// wall clock, the statistic's name otherwise ("device_busy", "device_event"). One title: the
// reports, the compare table, Python's repr and the plots once each wrote their own.
std::string statistic_title(Statistic statistic);
std::string phases_heading();
std::string total_n_heading(PhaseSetting setting);
std::string growth_heading(std::string_view axis);

}  // namespace gpumeter

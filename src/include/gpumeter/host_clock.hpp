#pragma once
// The one rule that turns two host-clock timings into a claim (docs/comparisons.md, "the host
// clock"). A host clock on a shared machine carries no calibrated confidence of its own: under load
// two passes of one function read 1.5x to 8x apart. So a claim is made the way device time makes
// one, from the passes, with the 1.5x resolution kept as the floor of what is claimed:
//   - the interval of the ratio from the passes (difference.hpp: each pass a unit, at 99%) must
//     exclude no difference, on the side the medians point to;
//   - the medians must differ by kResolutionRatio or more;
//   - the means per call, printed beside, must point the same way (a verdict never contradicts
//     the means shown with it).
// Anything else is "no difference this machine can resolve now", with the spread of the passes
// and the load average the run read. Used by compare, the pytest gate, history, phases, totals,
// sweeps, evaluate and plots; none spells its own.
#include <optional>
#include <string>
#include <vector>

#include "gpumeter/detail/difference.hpp"
#include "gpumeter/detail/duration.hpp"
#include "gpumeter/detail/measurement.hpp"
#include "gpumeter/detail/timing_method.hpp"
#include "gpumeter/detail/verdict.hpp"

namespace gpumeter {

// Where gpumeter runs both sides itself on the host clock, the rounds of A B B A it runs: 3 give
// each side 6 passes (10 degrees of freedom), so a 3x difference is caught with passes 40% apart
// (Student's t at 99% is 3.17 there, 9.92 at the 2 degrees of freedom of one round).
inline constexpr int kHostClockRounds = 3;

// The interval rules of the host clock: the current ones, each pass's level its median.
inline constexpr IntervalRules kHostClockIntervalRules{kDifferenceConfidence, true, true};

// Across two runs (a baseline record against a new one, the pytest gate, a history's commits) the
// passes of the two sides were not interleaved, so the load of each run falls on one side only,
// and passes that agree within a run say nothing of the drift between runs. On a loaded machine an
// unchanged function read well beyond the 1.5x floor of its baseline of a minute before, and a 3x
// slower one no lower than just over 2x (docs/measured-figures.md, "The host clock across runs"):
// across runs the floor of what the host clock claims is 2x.
// That floor is what a row without a yardstick is judged by (a record before schema 12, a front
// end that gives none): "across two runs, whose passes were not interleaved".
inline constexpr double kAcrossRunsResolutionRatio = 2.0;

// The yardstick: a fixed piece of the front end's own work (for Python rows a pure-Python loop)
// timed in passes interleaved with the row's, A Y Y A, its level in each pass kept with the row
// (Measurement::yardstick). Across two runs each row is read against its own yardstick: each
// pass's readings over the level of the yardstick's pass beside it. Load local in time slows the
// row and the yardstick of the same minutes alike, so what is compared is the ratio of the two
// rows' ratios to their yardsticks, and the drift between runs falls on both sides: the 1.5x
// resolution is the floor again. What a loaded machine gives with it, and the drift of a row's own
// that no yardstick shares, are measured in docs/measured-figures.md ("The host clock across
// runs").
inline constexpr double kAcrossRunsYardstickRatio = kResolutionRatio;

// A call's overhead, not work. On device time a call that ran nothing is refused (no kernel: an
// Attribution error); the host clock sees no kernel, so it cannot tell a call that ran nothing from
// a short one, and reads the path into the call either way (its two clock reads, the front end's
// dispatch). A Python call that does nothing reads a few tenths of a microsecond
// (docs/measured-figures.md, "The host clock's floor"); this floor is 3 to 5 times that, so a
// reading at or under it is mostly that path, whatever the call did. One floor for every front
// end: C++ work under 1 us is flagged too, where the clock cannot say how much of a reading is
// the path. Such a row keeps its number, flagged as measuring the call's overhead, not work, and
// two such rows are never said to differ: what would differ is the path, not the work. Work this
// short is timed as a loop of calls inside one.
inline constexpr double kHostCallOverheadFloorNs = 1000;

// Whether a row of `statistic` with this median measures the call's overhead, not work: a
// host-clock median (synchronized_wall_clock) at or under kHostCallOverheadFloorNs. Device time
// never is.
bool measures_call_overhead(Statistic statistic, double median_ns);

// "measures the call's overhead, not work (median 0.32 us, at or under the host clock's 1 us
// floor)": what a table's note, a result's sentence and Python say of such a row.
std::string call_overhead_words(double median_ns);

// What the rule reads of the two sides.
struct HostClockSides {
  double baseline_median_ns = 0;
  double candidate_median_ns = 0;
  // Means per call over every sample; 0 where not known (then no direction check).
  double baseline_mean_ns = 0;
  double candidate_mean_ns = 0;
  // The interval from the passes; nullopt where a side has fewer than two passes or the passes
  // give none a number can state (unresolved: no claim).
  std::optional<RelativeDifference> interval;
  // The widest side's spread of pass levels (highest over lowest, less 1); nullopt with one pass.
  std::optional<double> spread;
  // The 1-minute load average the run read (/proc/loadavg), where it read one.
  std::optional<double> load_average;
  // Both rows measure the call's overhead, not work (measures_call_overhead): what differs is the
  // path into the calls, so nothing is claimed. Set by whoever reads rows (compare_rows).
  bool both_measure_call_overhead = false;
  // The two sides are rows of two runs (compare_across_runs): the floor is
  // kAcrossRunsYardstickRatio where they are read against their yardsticks, else
  // kAcrossRunsResolutionRatio.
  bool across_runs = false;
  // Across runs, both rows read against a yardstick of one work (host_clock_sides_across_runs):
  // the medians, means, interval and spread above are those of the passes so read, and the
  // means per call as measured, which a front end prints, are `printed_*_mean_ns`.
  bool against_yardstick = false;
  double printed_baseline_mean_ns = 0;
  double printed_candidate_mean_ns = 0;
  // Across runs, not read against a yardstick: why ("the base row has no yardstick").
  std::string no_yardstick;
};

// The verdict: `resolution` directional_difference only where every condition above holds and
// the two rows do not both measure the call's overhead; otherwise no_measured_difference, with
// `label` saying why in the rule's words.
RatioVerdict host_clock_verdict(const HostClockSides& sides);

// The sides from samples split into passes (each a pass's readings in ns, in the order they ran),
// as the comparison rule reads them: pass levels, medians and means over every sample, the
// interval where each side has two passes and it can be stated. A phase's fresh processes are
// each a pass of one reading. Throws std::invalid_argument on an empty side or a time that is not
// positive.
HostClockSides host_clock_sides(const PassSamples& baseline, const PassSamples& candidate,
                                Nanos tick_ns, std::optional<double> load_average = std::nullopt);

// Each pass's readings times `scale_ns` over the level of the yardstick's pass beside it
// (`yardstick_pass_ns`, one per pass): the pass as if run under the load the scale was read at.
// Throws std::invalid_argument where the counts differ or a level is not positive.
PassSamples read_against_yardstick(const PassSamples& passes,
                                   const std::vector<double>& yardstick_pass_ns, double scale_ns);

// The sides of rows of two runs (compare_across_runs). Where both carry a yardstick of the same
// work, one level per pass, each side's passes are read against its own yardstick, both scaled
// to the baseline's yardstick (the median of its pass levels); the floor is then
// kAcrossRunsYardstickRatio. Otherwise the passes as measured, the floor
// kAcrossRunsResolutionRatio, and `no_yardstick` says why. Throws as host_clock_sides.
HostClockSides host_clock_sides_across_runs(
    const PassSamples& baseline, const std::optional<YardstickReading>& baseline_yardstick,
    const PassSamples& candidate, const std::optional<YardstickReading>& candidate_yardstick,
    Nanos tick_ns, std::optional<double> load_average = std::nullopt);

// The two in one: what a front end with passes of its own (phases, totals) calls.
RatioVerdict compare_host_passes(const PassSamples& baseline, const PassSamples& candidate,
                                 Nanos tick_ns, std::optional<double> load_average = std::nullopt);

// Readings each of its own pass (a fresh process each, or calls with nothing between them to
// group them): the rule over them, a reading a pass. Throws as host_clock_sides.
RatioVerdict compare_host_readings(const std::vector<double>& baseline,
                                   const std::vector<double>& candidate);

// Whether an interval can be stated: every bound a finite ratio above -1 (a factor, not
// infinity). Passes far enough apart overflow it; such a comparison is unresolved, not refused.
bool statable(const RelativeDifference& d);

// The widest side's spread of pass levels (pass_level by `rules`: on the host clock each pass's
// median), or nullopt where no side has two passes.
std::optional<double> pass_spread(const PassSamples& baseline, const PassSamples& candidate,
                                  const IntervalRules& rules = kHostClockIntervalRules);

// "passes spread 43%; load average 6.9" (what an unresolved verdict states).
std::string spread_words(std::optional<double> spread, std::optional<double> load_average);

}  // namespace gpumeter

#pragma once
// total(N) = init + compile or load + conversion + build + capture + N x per call, beside the
// measured totals (docs/phases.md). Computed from a record's phases only.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gpumeter/detail/duration.hpp"
#include "gpumeter/detail/phases.hpp"
#include "gpumeter/detail/row.hpp"
#include "gpumeter/detail/timing_method.hpp"
#include "gpumeter/detail/verdict.hpp"

namespace gpumeter {

// One term of the decomposition: the phase read, and its median; nullopt when not measured,
// never zero. Every term is a synchronized wall-clock phase (the time a user waits): a reading
// in another statistic is not read into the sum.
struct TotalTerm {
  Phase phase = Phase::init;
  PhaseSetting setting = PhaseSetting::fresh_cached;
  std::optional<double> median_ns;
};

struct TotalAtN {
  int calls = 1;
  std::optional<double> predicted_ns;  // the decomposition; nullopt if a term is not measured
  // The median of the measured totals, spawn to the synchronize after the N-th call; nullopt if
  // none.
  std::optional<double> measured_ns;
  // What the user of a one-shot tool waits for: measured_ns and the median process exit (the last
  // synchronize to the exit the parent sees); nullopt when the exit was not measured.
  std::optional<double> measured_to_exit_ns;
  std::size_t measured_samples = 0;  // the processes that median is of
  // measured (to the exit where it was measured, as the prediction then holds it) over predicted,
  // when both are numbers: above 1 the parts miss something (a cost
  // outside every phase), below 1 they overlap (asynchronous calls pipelined in the loop).
  std::optional<double> measured_over_predicted;
};

struct TotalN {
  RowKey row;
  PhaseSetting setting = PhaseSetting::fresh_cached;
  // process start + init + (cold compile or cached load) + conversion + first build + capture +
  // process exit, in that order, each term present (its median nullopt when not measured).
  std::vector<TotalTerm> fixed;
  TotalTerm per_call;        // end_to_end, warm, synchronized wall clock
  std::vector<TotalAtN> at;  // every N with a measured total, and 1, 10, 100; ascending
  // The terms that may not apply to a candidate (cached load, conversion, first build, capture,
  // and the process exit, which records before it did not measure:
  // a candidate without a build has none) and were not measured: left out of the sum, read "not
  // measured". In the order of `fixed`.
  std::vector<Phase> absent;
  // The terms every candidate pays (process start, init, the per-call end_to_end, and in the cold
  // decomposition the cold compile it exists to show) that were not measured: while one is
  // missing, no total is predicted. In the order of `fixed`, then end_to_end.
  std::vector<Phase> missing;
};

// The decompositions of every candidate of `phases` and `totals` (in order of first appearance),
// for the cached setting (what a rerun pays) and, where a cold compile or a cold total was
// measured, the cold one. A term is the median of every sample of its phase, in its setting:
//   - process start, init, conversion, first build: the decomposition's own fresh setting, else
//     the other fresh setting (TotalTerm::setting says which was read);
//   - cold compile: fresh_cold; cached load: fresh_cached;
//   - graph capture and the per-call end_to_end: warm_process.
// A term read from nothing is nullopt. The measured total at N is the median of every sample of
// the row's totals of N calls in the decomposition's setting; totals of fewer than 1 call are
// not read.
std::vector<TotalN> decompose_totals(const std::vector<PhaseReading>& phases,
                                     const std::vector<MeasuredTotal>& totals);

// A crossover between two measured points of an axis (N calls, or a size), never an
// interpolated point: below `low` one candidate leads, from `high` on the other.
struct Crossover {
  RowKey first;   // the candidate ahead at `low` (for a size axis, params without the axis)
  RowKey second;  // the candidate ahead at `high`
  double low = 0;
  double high = 0;
  // The axis: kCallsAxis for N calls, else the param swept; "" from find_crossovers alone.
  std::string axis;
  // Crossovers in N: the setting the totals were measured in; nullopt for a size axis.
  std::optional<PhaseSetting> setting;
  // The statistic both candidates' points are in (set by crossovers_in_calls, analyze_sweeps).
  Statistic statistic = Statistic::synchronized_wall_clock;
  // Both ends decided by the rule of the statistic (host_clock.hpp's for wall clock, an
  // interval that excludes no difference for device time); false: the medians change order
  // but at least one end is within the resolution, so the order is not established.
  bool resolved = false;
};

// How one point of an axis compares: which of the two is ahead, decided or not.
struct AxisPoint {
  double x = 0;
  double first_ns = 0;   // the first candidate's median
  double second_ns = 0;  // the second's
  // +1: the second is decidedly faster; -1: decidedly slower; 0: within the rule's resolution.
  int decided = 0;
};

// The crossovers along an axis, from measured points only (sorted by x here), never an
// interpolated point:
//   - resolved: the decided leader changes between two consecutive decided points; the bracket
//     is those two x's, and the undecided points between lie inside it;
//   - unresolved: the median order (the sign of first_ns - second_ns) changes between two
//     consecutive points that have one (equal medians have none) and no resolved bracket covers
//     that interval.
// In x order. Throws std::invalid_argument on a repeated x, or an x or median that is not finite.
std::vector<Crossover> find_crossovers(const RowKey& first, const RowKey& second,
                                       std::vector<AxisPoint> points);

inline constexpr const char* kCallsAxis = "calls";

// The crossovers in N of each pair of candidates of a case and params (in order of first
// appearance), in each setting where both have measured totals at 2 or more common N: each N's
// medians, decided by the host-clock rule with each fresh process a pass (host_clock.hpp;
// measured totals are wall clock).
std::vector<Crossover> crossovers_in_calls(const std::vector<MeasuredTotal>& totals);

}  // namespace gpumeter

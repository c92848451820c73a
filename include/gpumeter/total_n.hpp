#pragma once
// total(N) = init + compile or load + conversion + build + capture + N x per call, beside the
// measured totals (docs/phases.md). Computed from a record's phases only.
#include <optional>
#include <string>
#include <vector>

#include "gpumeter/duration.hpp"
#include "gpumeter/phases.hpp"
#include "gpumeter/row.hpp"
#include "gpumeter/verdict.hpp"

namespace gpumeter {

// One term of the decomposition: the phase read, and its median; nullopt when not measured
// (the sum is then not a number either: a missing term is never read as zero).
struct TotalTerm {
  Phase phase = Phase::init;
  PhaseSetting setting = PhaseSetting::fresh_cached;
  std::optional<double> median_ns;
};

struct TotalAtN {
  int calls = 1;
  std::optional<double> predicted_ns;  // the decomposition; nullopt if a term is not measured
  std::optional<double> measured_ns;   // the median of the measured totals; nullopt if none
  // measured over predicted, when both are numbers: above 1 the parts miss something (a cost
  // outside every phase), below 1 they overlap (asynchronous calls pipelined in the loop).
  std::optional<double> measured_over_predicted;
};

struct TotalN {
  RowKey row;
  PhaseSetting setting = PhaseSetting::fresh_cached;
  // process start + init + (cold compile or cached load) + conversion + first build + capture
  std::vector<TotalTerm> fixed;
  TotalTerm per_call;        // end_to_end, warm, synchronized wall clock
  std::vector<TotalAtN> at;  // every N with a measured total, and 1, 10, 100
};

// The decompositions of every candidate of `phases`, for the cached setting (what a rerun pays)
// and, where a cold compile was measured, the cold one.
std::vector<TotalN> decompose_totals(const std::vector<PhaseReading>& phases,
                                     const std::vector<MeasuredTotal>& totals);

// A crossover between two measured points of an axis (N calls, or a size), never an
// interpolated point: below `low` one candidate leads, from `high` on the other.
struct Crossover {
  RowKey first;   // the candidate ahead at `low`
  RowKey second;  // the candidate ahead at `high`
  double low = 0;
  double high = 0;
  // Both ends decided by the rule of the statistic (the 1.5x resolution for wall clock, an
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

// The crossovers along an axis, from measured points only (sorted by x here). A change of the
// decided leader between two decided points is a resolved bracket (the undecided points between
// lie inside it); a change of the median order with no decided change is an unresolved one.
std::vector<Crossover> find_crossovers(const RowKey& first, const RowKey& second,
                                       std::vector<AxisPoint> points);

// The crossovers in N of each pair of candidates with measured totals (the 1.5x rule decides).
std::vector<Crossover> crossovers_in_calls(const std::vector<MeasuredTotal>& totals);

}  // namespace gpumeter

#pragma once
// What a run to a target precision reached, recomputed from the passes its rows hold: how a
// record's reader checks the stored figure rather than trusting it.
#include <optional>
#include <string>
#include <vector>

#include "gpumeter/detail/difference.hpp"
#include "gpumeter/detail/measurement.hpp"

namespace gpumeter {

// `case_rows` are the measurements of one case's implementations in their order (the first is
// the baseline). For one row, its level's half-width; for several, the widest comparison with the
// first; both as the stop rule reads them (the spread at its upper bound). nullopt when a row has
// fewer than 2 passes, pass sizes that do not add up, or a pass whose level is not positive.
// `rules`: those of the record's schema version (comparison.hpp's interval_rules_of).
std::optional<double> precision_reached(const std::vector<const Measurement*>& case_rows,
                                        const IntervalRules& rules = {});

// Whether `outcome` is what the stop rule gives for the passes `case_rows` hold (each row's
// passes are outcome.passes; the caller checked that). The rule is replayed round by round: no
// earlier round met the target or (by the samples' own time, a lower bound of its wall time)
// would have passed the time cap; the stop reason is the one the rule gives after the last round;
// the elapsed time is no less than the samples' own device time and overruns the cap by no more
// than one round can. Empty when it is; else a sentence naming the field (stopped, elapsed_ns).
std::string precision_outcome_problem(const std::vector<const Measurement*>& case_rows,
                                      const PrecisionOutcome& outcome,
                                      const IntervalRules& rules = {});

}  // namespace gpumeter

#pragma once
// What a run to a target precision reached, recomputed from the passes its rows hold: how a
// record's reader checks the stored figure rather than trusting it.
#include <optional>
#include <vector>

#include "gpumeter/measurement.hpp"

namespace gpumeter {

// `case_rows` are the measurements of one case's implementations in their order (the first is
// the baseline). For one row, its level's half-width; for several, the widest comparison with the
// first; both as the stop rule reads them (the spread at its upper bound). nullopt when a row has
// fewer than 2 passes, pass sizes that do not add up, or a pass whose level is not positive.
std::optional<double> precision_reached(const std::vector<const Measurement*>& case_rows);

}  // namespace gpumeter

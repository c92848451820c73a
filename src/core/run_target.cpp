#include "gpumeter/run_target.hpp"

namespace gpumeter {

RunTargetConflict run_target_conflict(bool budget, bool precision, bool max_time,
                                      const RunTargetNames& names) {
  if (precision && budget) {
    return {names.precision,
            names.budget + " and " + names.precision +
                " exclude each other: a run to a precision measures until it gets there (or " +
                names.max_time + "), not for a fixed budget"};
  }
  if (max_time && !precision) {
    return {names.max_time,
            names.max_time + " caps a run to a target precision: give " + names.precision + " too"};
  }
  return {};
}

}  // namespace gpumeter

#pragma once
// A measurement's samples split into its passes, by its pass sizes: what the comparison rule and
// the target-precision rule both read. Internal to the core.
#include "gpumeter/detail/difference.hpp"
#include "gpumeter/detail/measurement.hpp"

namespace gpumeter {

// Each pass's device_busy samples, in the order the passes ran. Empty when the sizes do not add
// up to the samples, or a size is 0 (a record reader refuses such a result before this is reached).
PassSamples passes_of(const Measurement& m);

}  // namespace gpumeter
